"""Redis: key layout, atomic scripts, the read model and the engine that ties them to memory/."""
