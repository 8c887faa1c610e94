"""The web table in a real headless browser (the distribution's Chromium,
driven through its chromedriver by Selenium) against the session's live
host, through the web gateway only: a person-like script plays a whole Big
Two game and a whole Duel against bots by clicking (Big Two: it selects the
cards of a play in its hand, then presses Play, or presses Pass; Duel: it
attacks, plays cards and ends turns with the offered actions), and the page
checks every view hash and the deal; and a two-seat Kingdoms game by clicking what
is offered. It also spectates a table Python bots
play, and follows a tournament's standings to its end.

With TABLEHOST_WEB_SCREENSHOT=DIR the test saves the pages there
(docs/images/web-table-*.png are made so)."""

from __future__ import annotations

import asyncio
import os
import random
from pathlib import Path

import pytest
from conftest import run
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait
from support import close_all, play_randomly, seat_table
from test_console import browser  # noqa: F401 (the module's headless Chromium)
from test_tournaments import DECK, register, token  # noqa: F401 (token: the module's organiser fixture)

from tablehost.clients.bots import RandomBot
from tablehost.clients.sdk import LobbyClient
from tablehost.clients.tournament import TournamentClient, play_tournament

pytestmark = [pytest.mark.integration, pytest.mark.slow]

WAIT_S = 30
MAX_CLICKS = 400


def page(browser: webdriver.Chrome, host) -> str:
    url = f"http://{host.host.web.address}/?botDelay=0"
    browser.get(url)
    WebDriverWait(browser, WAIT_S).until(lambda b: b.find_element(By.ID, "play-bots").is_displayed())
    return url


def screenshot(browser: webdriver.Chrome, name: str) -> None:
    folder = os.environ.get("TABLEHOST_WEB_SCREENSHOT")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        browser.save_screenshot(str(Path(folder) / f"web-table-{name}.png"))


def status(browser: webdriver.Chrome) -> dict[str, str]:
    return browser.execute_script("return Object.assign({}, document.getElementById('status').dataset)")


def game_over(browser: webdriver.Chrome) -> bool:
    return bool(browser.find_element(By.ID, "result").get_attribute("data-winner"))


def when_ready(browser: webdriver.Chrome, find, timeout: float = WAIT_S):
    """Whatever `find` returns once it is truthy, retried across re-renders
    (the page redraws the table on every change)."""
    def attempt(_driver):
        try:
            return find()
        except StaleElementReferenceException:
            return None
    return WebDriverWait(browser, timeout).until(attempt)


def click(browser: webdriver.Chrome, css: str) -> bool:
    """Clicks the element if it is still there and enabled; False when a
    re-render took it away first (the caller looks again)."""
    try:
        elements = [e for e in browser.find_elements(By.CSS_SELECTOR, css) if e.is_enabled()]
        if not elements:
            return False
        elements[0].click()
        return True
    except StaleElementReferenceException:
        return False


def my_turn_or_over(browser: webdriver.Chrome, css: str):
    return lambda: game_over(browser) or bool([e for e in browser.find_elements(By.CSS_SELECTOR, css) if e.is_enabled()])


def start_against_bots(browser: webdriver.Chrome, game: str, deck: str | None = None) -> None:
    Select(browser.find_element(By.ID, "game")).select_by_value(game)
    if deck:
        Select(browser.find_element(By.ID, "deck")).select_by_visible_text(deck)
    browser.find_element(By.ID, "name").clear()
    browser.find_element(By.ID, "name").send_keys("clicker")
    browser.find_element(By.ID, "play-bots").click()
    when_ready(browser, lambda: status(browser).get("seq") is not None and browser.find_element(By.ID, "table").is_displayed())


def finish_checked(browser: webdriver.Chrome) -> dict[str, str]:
    """The game is over, every hash matched, and the page verified the deal."""
    when_ready(browser, lambda: game_over(browser))
    final = status(browser)
    result = browser.find_element(By.ID, "result")
    assert final["desyncs"] == "0", final
    assert int(final["hashes"]) >= int(final["seq"]) > 0, final
    assert result.get_attribute("data-verified") == "true", result.text
    return final


def test_a_person_plays_big_two_to_the_end_by_clicking(browser, host) -> None:
    page(browser, host)
    start_against_bots(browser, "bigtwo")
    clicks = 0
    while not game_over(browser):
        when_ready(browser, my_turn_or_over(browser, "#pass, .hint"))
        if game_over(browser):
            break
        hints = browser.find_elements(By.CSS_SELECTOR, ".hint")
        try:
            cards = hints[0].get_attribute("data-cards").split() if hints else []
        except StaleElementReferenceException:
            continue
        if cards:
            # As a person does: pick the cards of the lowest legal play in the hand, then press Play.
            if all(click(browser, f'.card[data-card="{card}"]') for card in cards):
                if len(browser.find_elements(By.CSS_SELECTOR, ".card")) in (9, 10) and clicks < 8:
                    screenshot(browser, "bigtwo")  # the cards picked, before Play
                click(browser, "#play-selected")
        else:
            click(browser, "#pass")
        clicks += 1
        assert clicks < MAX_CLICKS, "the game did not end"
    final = finish_checked(browser)
    assert final["seat"] in {"0", "1", "2", "3"}


def test_a_person_plays_a_duel_to_the_end_by_clicking(browser, host) -> None:
    page(browser, host)
    start_against_bots(browser, "duel", deck="hunter-basic")
    chooser = random.Random(5)
    clicks = 0
    while not game_over(browser):
        when_ready(browser, my_turn_or_over(browser, ".action"))
        if game_over(browser):
            break
        try:
            offered = [(e.get_attribute("data-type"), e.text) for e in browser.find_elements(By.CSS_SELECTOR, ".action")]
        except StaleElementReferenceException:
            continue
        kinds = [kind for kind, _ in offered]
        # Attack the other hero when possible, else play a card, else end the turn (or keep the opening hand).
        face = next((i for i, (kind, label) in enumerate(offered) if kind == "attack" and "hero" in label), None)
        if face is not None:
            index = face
        elif "play" in kinds and chooser.random() < 0.8:
            index = kinds.index("play")
        elif "mulligan" in kinds:
            index = kinds.index("mulligan")
        else:
            index = kinds.index("end_turn") if "end_turn" in kinds else 0
        if clicks == 12:
            screenshot(browser, "duel")
        click(browser, f'.action[data-index="{index}"]')
        clicks += 1
        assert clicks < MAX_CLICKS, "the duel did not end"
    finish_checked(browser)


def test_a_person_plays_kingdoms_to_the_end_by_clicking(browser, host) -> None:
    """Two seats, the person against one bot: whatever is offered is clicked,
    a choice too large to list answered with its default."""
    page(browser, host)
    Select(browser.find_element(By.ID, "game")).select_by_value("kingdoms")
    seats = browser.find_element(By.ID, "seats")
    seats.clear()
    seats.send_keys("2")
    start_against_bots(browser, "kingdoms")
    chooser = random.Random(11)
    clicks = 0
    while not game_over(browser):
        when_ready(browser, my_turn_or_over(browser, ".action"), timeout=60)
        if game_over(browser):
            break
        listed = len(browser.find_elements(By.CSS_SELECTOR, ".action[data-index]"))
        # One of the listed actions at random, or the default offered for a choice too large to list.
        click(browser, f'.action[data-index="{chooser.randrange(listed)}"]' if listed else '.action[data-type="default"]')
        clicks += 1
        assert clicks < 3 * MAX_CLICKS, "the game did not end"
    finish_checked(browser)


def test_the_page_spectates_a_table_to_its_end(browser, host) -> None:
    async def seat() -> tuple[list[LobbyClient], list]:
        return await seat_table(host.target, names=[f"watched-{i}" for i in range(4)])

    lobbies, sessions = run(seat())
    try:
        page(browser, host)
        browser.find_element(By.ID, "table-id").send_keys(sessions[0].table_id)
        browser.find_element(By.ID, "spectate").click()
        when_ready(browser, lambda: status(browser).get("seat") == "-1")

        async def play() -> None:
            await asyncio.gather(*(play_randomly(s, seed) for seed, s in enumerate(sessions)))

        run(play())
        when_ready(browser, lambda: game_over(browser))
        final = status(browser)
        assert final["desyncs"] == "0" and int(final["seq"]) == sessions[0].result.seq
        assert not browser.find_elements(By.CSS_SELECTOR, ".action, #play-selected"), "a spectator is offered nothing"
    finally:
        run(close_all(lobbies, sessions))


def test_the_page_follows_a_tournament_to_its_end(browser, host, token) -> None:  # noqa: F811
    async def create():
        client = TournamentClient(host.target, organiser_token=token)
        created = await client.create("web table", "duel", "swiss", rounds=2)
        keys = await register(client, created.tournament_id, ["wa", "wb", "wc", "wd"], DECK)
        return client, created, keys

    client, created, keys = run(create())
    page(browser, host)
    browser.find_element(By.ID, "tournament-id").send_keys(created.tournament_id)
    browser.find_element(By.ID, "follow").click()
    when_ready(browser, lambda: browser.find_element(By.ID, "tournament").get_attribute("data-state") == "registering")

    async def play() -> None:
        lobby = LobbyClient(host.target)
        games = [play_tournament(client, lobby, created.tournament_id, p, k, RandomBot(i))
                 for i, (p, k) in enumerate(keys.items())]
        started = asyncio.ensure_future(asyncio.gather(*games))
        await client.start(created.tournament_id, created.organiser_key)
        await started
        await lobby.close()
        await client.close()

    run(play())
    when_ready(browser, lambda: browser.find_element(By.ID, "tournament").get_attribute("data-state") == "finished")
    rows = browser.find_elements(By.CSS_SELECTOR, "#standings tr.standing")
    assert sorted(row.find_elements(By.TAG_NAME, "td")[1].text for row in rows) == ["wa", "wb", "wc", "wd"]
    screenshot(browser, "tournament")
