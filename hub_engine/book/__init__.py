"""Opening books built by the engine itself (drop-out expansion) and played from at the root.

- keys: the position key books are indexed by (independent of the search's Zobrist tables);
- ballots: the start positions of the balloted openings each rule-set's book covers;
- worklog: the append-only log of scored positions a build writes and resumes from;
- tree: the drop-out expansion graph (minimax values and expansion priorities);
- score: the fixed-node search that scores one position (runs in the workers);
- build: the build loop on a process pool or a Dask cluster;
- fileformat: the compact book file (header, checksum, xz) the engine reads;
- store: where book files and build logs live;
- play: the engine's side (Hub parameters book, book-ply, book-margin; probe and choice);
- cli: `hub-engine book build|probe|info`.

See docs/book.md.
"""
