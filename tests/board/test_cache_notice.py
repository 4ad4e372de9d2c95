"""The page says once, in its top bar, when the cache dir cannot be written."""

from conftest import serve, wait_until
from lens.board.app import create_app
from lens.events.provider import DataProvider


def _board_page(page, logdir, cache_dir):
    provider = DataProvider(str(logdir), reload_interval=0, cache_dir=cache_dir)
    provider.reload()
    return provider, create_app(provider, reload_interval=0)


def test_blocked_cache_dir_shows_one_dismissable_notice(page, tbx_logdir, tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("a regular file where the cache dir should be")
    provider, app = _board_page(page, tbx_logdir, str(blocker / "cache"))
    error = provider.progress()["cache"]["error"]
    with serve(app) as url:
        page.goto(f"{url}/#tab=scalars")
        notice = page.locator("#cache-notice")
        assert wait_until(notice.is_visible)
        assert "serving from memory" in notice.text_content()
        assert notice.get_attribute("title").startswith(error)
        assert page.locator("#cache-notice").count() == 1
        notice.click()
        assert wait_until(notice.is_hidden)
        page.click("#reload")  # a later reload does not bring it back
        page.wait_for_timeout(300)
        assert notice.is_hidden()
        assert page.errors == []


def test_writable_cache_dir_shows_no_notice(page, tbx_logdir, tmp_path):
    provider, app = _board_page(page, tbx_logdir, str(tmp_path / "cache"))
    assert provider.progress()["cache"]["ok"] is True
    with serve(app) as url:
        page.goto(f"{url}/#tab=scalars")
        assert wait_until(lambda: page.locator("#run-list li").count() > 0)
        assert page.is_hidden("#cache-notice")
        assert page.errors == []
