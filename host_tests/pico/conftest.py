"""The emulated boards' tests, the longest first: two at a time (make test-pico),
a long one left for the end would run alone."""

# wall time on a 2-core machine, roughly (docs/PERFORMANCE.md, "make test-pico")
_FIRST = ("test_deploy_update_export", "test_hall_mode", "test_a_game_on_the_board")


def pytest_collection_modifyitems(items):
    def rank(item):
        for i, name in enumerate(_FIRST):
            if item.name.startswith(name):
                return i
        return len(_FIRST)
    items.sort(key=rank)
