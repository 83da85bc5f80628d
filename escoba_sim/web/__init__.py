"""The page to play and learn on (``escoba-sim serve``): a local web app (Starlette, served by uvicorn) that
deals games against any built-in strategy with the evaluator's hints, analyses finished and uploaded hand
records, and keeps every hand as a record. ``app`` holds the routes, ``games`` the games and the request
checks, ``cards`` the SVG deck, ``words`` the script's words; the page is ``templates/`` and ``static/``.
Needs the ``web`` extra (``pip install -e ".[web]"``)."""
