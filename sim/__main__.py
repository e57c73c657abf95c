from sim.app.cli import main

raise SystemExit(main())
