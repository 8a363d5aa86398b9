"""Tools that drive Hub engines: matches, SPRT and the latency measurement."""
