"""Kamakura: kernels (rules), board geometry, agents, batch self-play and the readable API."""
