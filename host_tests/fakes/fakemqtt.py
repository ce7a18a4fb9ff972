"""A stand-in for net/mqtt.py's Client in the host tests: the publisher's calls,
each message acknowledged at once; subclasses record what a board sends
(`sent(topic, payload, retain)`)."""


class Client:
    up = True               # whether connect() succeeds
    reading = False         # (never in the middle of a packet)
    watching = False        # (idle() cannot tell: the publisher steps to find out)

    def __init__(self, **kw):
        self.kw = kw
        self.client_id = kw["client_id"]        # the publisher sets both per connection
        self.will = (kw.get("will_topic"), kw.get("will_message"), kw.get("will_qos"),
                     kw.get("will_retain"))
        self.connected = False
        self.on_message = None

    async def connect(self, timeout_sec=3):
        self.connected = type(self).up
        return self.connected

    def alive(self):
        return self.connected

    async def keep(self):
        pass

    async def publish(self, topic, payload, qos=0, retain=False):
        self.sent(topic, payload, retain)
        return 0

    def sent(self, topic, payload, retain):
        pass

    def idle(self):
        return False

    def acked(self, pid):
        return True

    async def subscribe(self, topic, qos=1):
        pass

    async def disconnect(self):
        self.connected = False

    def close(self):
        self.connected = False
