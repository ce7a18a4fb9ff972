"""Device entry: factory.py makes the board and runs the scoreboard under
the watchdog (the work is there, compiled: this file is compiled at every start)."""
import factory

app = factory.start()           # the wiring check shows; the journal is next
factory.run(app)
