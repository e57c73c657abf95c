"""Sakura: rule parameters, engine, agents and the readable API."""
