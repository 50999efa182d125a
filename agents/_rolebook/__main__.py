from rolebook.agents.main import main

raise SystemExit(main())
