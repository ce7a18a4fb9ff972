"""The Cowboy rules core: pure game logic shared by the Pico and the host tools."""
