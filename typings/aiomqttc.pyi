# What net/hall.py uses of aiomqttc, the MQTT client hall mode installs on the board
# (hall/requirements-board.txt pins it; it ships no stubs).
from typing import Any, Callable

log: Callable[..., Any]
TimeoutError: Any        # net/mqtt.py client_module() sets it on MicroPython

class MQTTClient:
    connected: bool
    protocol: Any
    def __init__(self, **kw: Any) -> None: ...   # net/hall.py _make_client()
    async def connect(self, timeout_sec: float = ...) -> bool: ...
    async def publish(self, topic: str, message: Any, qos: int = ...,
                      retain: bool = ...) -> Any: ...
    async def subscribe(self, topic: str, qos: int = ...) -> Any: ...
    async def disconnect(self) -> None: ...
    async def handle_disconnect(self) -> None: ...
