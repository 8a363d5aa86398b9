"""`hub-engine gui`: a board in the browser that plays and analyses every variant with the engine.

    command   the command line (options, the address printed, the browser opened)
    serve     uvicorn on the bound socket
    server    the Starlette application: page, assets, uploads, one WebSocket per tab
    security  the access token, Host and Origin checks in front of everything
    engines   one Hub engine process per tab (protocol.client.HubClient), driven from asyncio
    rules     what the page asks of the rules: legal moves, capture paths, game ends
    records   PDN in and out, analysis files in
    static/   the page: HTML, CSS and plain ES modules; the board drawing is shared with the
              report (hub_engine/report/templates/board.js)
"""
