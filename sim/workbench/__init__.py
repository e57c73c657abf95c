"""`balance workbench`: the designer's loop in the browser (docs/howto/workbench.md). Edit a config's
components, run games and watch the verdicts firm up, compare with the starting config, take the config away.

The page drives the same commands a designer types: every run is `balance simulate` or `balance compare` in
a child process, on the workspace's files, so a run in the page and the command line it shows give the same
tables, resume the same way and take the same lock. The layers: `workspace` (files and names), `drafts` (a
config being edited, validated as the command line validates it), `jobs` (the child processes), `status`
(what a run directory says so far), `views` (HTML) and `server` (the Starlette app); `sim.commands.workbench`
starts it.
"""
