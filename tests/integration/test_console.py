"""The admin console in a real headless browser (the distribution's
Chromium, driven through its chromedriver by Selenium), against the
session's live host, as an operator uses it: signs in with an admin token,
sees the rooms and the tables bots sit at, watches a table live as a
spectator while its players move, takes a seat from a player, closes a
table with a reason the players are told, pauses and cancels a tournament
and reads its state; a wrong token gets the refusal, not the data.

Chromium is kept on this machine: every host name but 127.0.0.1 resolves to
nothing, and its background services are off. With
TABLEHOST_CONSOLE_SCREENSHOT=PATH the test saves the page there
(docs/images/console.png is made so)."""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import admin_token, run
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait
from support import close_all, seat_table, wait_until
from test_admin_plane import LONG_TURN_MS, _sit_at_tables
from test_tournaments import DECK, register, token  # noqa: F401 (token: the module's organiser fixture)

from tablehost.clients.sdk import ClosedByAdministrator, LobbyClient, TableSession
from tablehost.clients.tournament import TournamentClient

pytestmark = [pytest.mark.integration, pytest.mark.slow]

WAIT_S = 20
QUIET_CHROMIUM = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                  "--window-size=1400,1000", "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--disable-default-apps", "--no-pings",
                  "--disable-domain-reliability", "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1")


@pytest.fixture(scope="module")
def browser() -> Iterator[webdriver.Chrome]:
    chromium, chromedriver = shutil.which("chromium"), shutil.which("chromedriver")
    assert chromium and chromedriver, "Chromium and chromedriver come with scripts/install_services.sh"
    options = Options()
    options.binary_location = chromium
    for argument in QUIET_CHROMIUM:
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(chromedriver), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def signed_in(browser: webdriver.Chrome, host, token_text: str) -> None:
    browser.get(f"http://{host.host.console.address}/")
    field = browser.find_element(By.ID, "token")
    field.clear()
    field.send_keys(token_text)
    browser.find_element(By.ID, "connect").click()


def text_of(browser: webdriver.Chrome, element_id: str) -> str:
    return browser.find_element(By.ID, element_id).text


def until(browser: webdriver.Chrome, condition, what: str):
    """Wait for the page (it refreshes every 2 s); stale elements are retried."""
    def attempt(driver: webdriver.Chrome):
        try:
            return condition(driver)
        except StaleElementReferenceException:
            return False
    return WebDriverWait(browser, WAIT_S, poll_frequency=0.1,
                         ignored_exceptions=(StaleElementReferenceException,)).until(attempt, message=what)


def table_row(browser: webdriver.Chrome, table_id: str):
    rows = browser.find_elements(By.CSS_SELECTOR, f'#tables tr[data-table="{table_id}"]')
    return rows[0] if rows else None


def reason(browser: webdriver.Chrome, text: str) -> None:
    field = browser.find_element(By.ID, "reason")
    field.clear()
    field.send_keys(text)


def test_a_wrong_token_is_refused_and_shows_nothing(browser: webdriver.Chrome, host) -> None:
    signed_in(browser, host, "not-a-token")
    until(browser, lambda b: text_of(b, "message").startswith("UNAUTHENTICATED"), "the refusal shown")
    assert not browser.find_elements(By.CSS_SELECTOR, "#rooms tbody tr")
    assert text_of(browser, "summary") == "not connected"


def test_an_operator_watches_a_table_removes_a_seat_and_closes_the_table(browser: webdriver.Chrome, host) -> None:
    loop_sessions: list[TableSession] = []

    async def seat() -> tuple[list[LobbyClient], list[TableSession]]:
        return await seat_table(host.target)

    lobbies, sessions = run(seat())
    loop_sessions.extend(sessions)
    table_id = sessions[0].table_id
    try:
        signed_in(browser, host, admin_token("console-operator"))
        until(browser, lambda b: "tables in" in text_of(b, "summary"), "the host's summary")
        assert browser.find_elements(By.CSS_SELECTOR, "#rooms tbody tr[data-room]")
        until(browser, lambda b: table_row(b, table_id) is not None, "the table listed")
        Select(browser.find_element(By.ID, "game-filter")).select_by_value("bigtwo")
        until(browser, lambda b: table_row(b, table_id) is not None, "the table listed under its game")
        row = table_row(browser, table_id)
        assert "player-0" in row.text and "bigtwo" in row.text

        table_row(browser, table_id).find_element(By.CSS_SELECTOR, "button.watch").click()
        until(browser, lambda b: text_of(b, "live-seq").startswith("seq 1 "), "the live view at the deal")
        assert '"hand_counts"' in browser.find_element(By.ID, "live-view").get_attribute("textContent")

        async def one_move() -> None:
            seat_to_act = sessions[0].view["to_act"]
            view = await sessions[seat_to_act].wait_for_request(timeout=10)
            assert (await sessions[seat_to_act].commit(view["request"]["legal_actions"][0])).accepted

        run(one_move())
        until(browser, lambda b: text_of(b, "live-seq").startswith("seq 2 "), "the move seen live")
        screenshot = os.environ.get("TABLEHOST_CONSOLE_SCREENSHOT")
        if screenshot:
            Path(screenshot).parent.mkdir(parents=True, exist_ok=True)
            browser.save_screenshot(screenshot)

        reason(browser, "abusive chat")
        table_row(browser, table_id).find_element(By.CSS_SELECTOR, "button.remove-seat").click()
        prompt = browser.switch_to.alert
        prompt.send_keys("3")
        prompt.accept()
        run(wait_until(lambda: sessions[3].failure is not None, timeout=WAIT_S))
        until(browser, lambda b: "removed" in text_of(b, "message"), "the removal's summary")

        reason(browser, "collusion under review")
        table_row(browser, table_id).find_element(By.CSS_SELECTOR, "button.close").click()
        until(browser, lambda b: table_row(b, table_id) is None, "the closed table gone from the list")
        run(wait_until(lambda: all(s.failure is not None for s in sessions[:3]), timeout=WAIT_S))
        until(browser, lambda b: "stream ended" in text_of(b, "live-seq"), "the live view's end")
    finally:
        run(close_all(lobbies, loop_sessions))
    assert isinstance(sessions[3].failure, ClosedByAdministrator) and "abusive chat" in str(sessions[3].failure)
    assert all(isinstance(s.failure, ClosedByAdministrator) and "collusion under review" in str(s.failure)
               for s in sessions[:3])


def test_an_operator_pauses_and_cancels_a_tournament_from_the_console(browser: webdriver.Chrome, host,
                                                                        token) -> None:  # noqa: F811
    async def start() -> tuple[str, list[asyncio.Task], list[TableSession], TournamentClient, LobbyClient]:
        client = TournamentClient(host.target, organiser_token=token)
        lobby = LobbyClient(host.target)
        created = await client.create("console", "duel", "swiss", rounds=2, turn_timeout_ms=LONG_TURN_MS,
                                      no_show_after_s=600)
        keys = await register(client, created.tournament_id, ["c-0", "c-1"], DECK)
        sessions: list[TableSession] = []
        following = [asyncio.ensure_future(_sit_at_tables(client, lobby, created.tournament_id, p, k, sessions))
                     for p, k in keys.items()]
        await client.start(created.tournament_id, created.organiser_key)
        await wait_until(lambda: len(sessions) == 2, timeout=WAIT_S)
        return created.tournament_id, following, sessions, client, lobby

    tournament_id, following, sessions, client, lobby = run(start())
    try:
        signed_in(browser, host, admin_token("console-operator"))
        until(browser, lambda b: tournament_id in text_of(b, "in-play"), "the tournament in play")
        [pick] = [button for button in browser.find_elements(By.CSS_SELECTOR, "#in-play button")
                  if tournament_id in button.text]
        pick.click()
        until(browser, lambda b: ": running, round 1" in text_of(b, "tournament-state"), "its state")
        assert {"c-0", "c-1"} <= {row.text.split()[1] for row in
                                  browser.find_elements(By.CSS_SELECTOR, "#standings tbody tr")}
        reason(browser, "venue break")
        browser.find_element(By.CSS_SELECTOR, "button.tournament-pause").click()
        until(browser, lambda b: ": paused, round 1" in text_of(b, "tournament-state"), "paused")
        reason(browser, "fire alarm")
        browser.find_element(By.CSS_SELECTOR, "button.tournament-cancel").click()
        until(browser, lambda b: "cancelled by an administrator: fire alarm" in text_of(b, "tournament-state"),
              "cancelled")
        run(wait_until(lambda: all(s.failure is not None for s in sessions), timeout=WAIT_S))
    finally:
        async def stop() -> None:
            for task in following:
                task.cancel()
            await asyncio.gather(*(s.close() for s in sessions), return_exceptions=True)
            await client.close()
            await lobby.close()

        run(stop())
    assert ": finished, round 1" in text_of(browser, "tournament-state")


def test_the_console_api_refuses_as_the_admin_plane_does(host) -> None:
    """Without a token 401; a request the service refuses keeps its status
    (400 no reason, 404 no such table); a body over 16 KiB is refused whole."""
    import json
    import urllib.error
    import urllib.request

    base = f"http://{host.host.console.address}"

    def post(path: str, body: bytes, token_text: str = "") -> tuple[int, dict]:
        request = urllib.request.Request(base + path, data=body, method="POST",
                                         headers={"Content-Type": "application/json",
                                                  **({"Authorization": f"Bearer {token_text}"} if token_text else {})})
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as error:
            text = error.read()
            return error.code, json.loads(text) if text.startswith(b"{") else {}

    good = admin_token()
    assert post("/api/tables/t/close", b'{"reason": "x"}')[0] == 401
    no_reason = post("/api/tables/t/close", b"{}", good)
    missing = post("/api/tables/no-such-table/close", b'{"reason": "gone?"}', good)
    too_big = post("/api/tables/t/close", json.dumps({"reason": "x" * 20_000}).encode(), good)
    assert no_reason[0] == 400 and no_reason[1]["code"] == "INVALID_ARGUMENT"
    assert missing[0] == 404 and "no-such-table" in missing[1]["details"]
    assert too_big[0] == 413
