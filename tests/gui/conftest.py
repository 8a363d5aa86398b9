"""Fixtures of the board's tests: one `hub-engine gui` server per test module, a headless
Chromium showing its board (skipped without Chromium), and a folder for the screenshots."""
import pytest
from gui_helpers import board_server, chromium, open_board


@pytest.fixture(scope="module")
def server():
    with board_server() as s:
        yield s


@pytest.fixture(scope="module")
def browser(server):
    with chromium() as driver:
        open_board(driver, server.url)
        yield driver


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    return tmp_path_factory.mktemp("gui-screenshots")
