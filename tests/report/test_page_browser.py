'''The morning page in a real headless browser (Debian's chromium driven
by playwright; no browser is downloaded): a split night's page renders
with no console error, its verdict is visible without scrolling, and it
names both partitions of the night.'''

import os
import shutil

import pytest

pytest.importorskip('matplotlib')

from iogap.__main__ import main as iogap    # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
#: A night split per partition on the local cluster: knl and shared
SPLIT = os.path.join(ROOT, 'tests', 'data', 'plan', 'split-night-results.db')
CHROMIUM = shutil.which('chromium') or '/usr/bin/chromium'
VIEWPORT = {'width': 1280, 'height': 800}


@pytest.fixture(scope='module')
def browser():
    if not os.access(CHROMIUM, os.X_OK):
        pytest.skip('no chromium (apt-get install chromium; ./setup.sh '
                    'tests installs it)')
    from playwright.sync_api import sync_playwright
    with sync_playwright() as pw:
        launched = pw.chromium.launch(
            executable_path=CHROMIUM,
            args=['--headless', '--no-sandbox', '--disable-gpu'])
        yield launched
        launched.close()


def test_the_split_night_opens_on_its_verdict(browser, tmp_path):
    assert iogap(['report', '--db', SPLIT, '-o', str(tmp_path)]) == 0
    page = browser.new_page(viewport=VIEWPORT)
    errors = []
    page.on('console', lambda m: m.type == 'error' and errors.append(m.text))
    page.on('pageerror', lambda err: errors.append(str(err)))
    page.goto((tmp_path / 'index.html').as_uri(), wait_until='load')
    assert not errors, errors

    verdict = page.locator('div.verdict').first
    assert verdict.is_visible()
    box = verdict.bounding_box()
    assert 0 <= box['y'] and box['y'] + box['height'] <= VIEWPORT['height']
    text = verdict.inner_text()
    assert text.startswith('GREEN: minicluster'), text
    assert 'partitions knl, shared' in text, text
    # every figure of the page decoded (embedded PNGs)
    widths = page.eval_on_selector_all('img', 'im => im.map(i => '
                                       'i.complete && i.naturalWidth)')
    assert widths and all(widths), widths
    page.close()
