"""The design commands: `sweep` (config variants compared), `tune` (a space searched for the fairest
config) and `ladder` (skill versus luck), over dotted-key overrides of a config. They run games only
through the application's runner (sim/app/runner.py)."""
