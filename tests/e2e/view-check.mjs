// SPDX-License-Identifier: MIT
// Opens a memtap view page in headless Chromium (Debian's, driven by playwright-core from
// npm) and prints one JSON object: load time, console errors, network requests, dialogs,
// the sections and table sizes found, and what a zoom and a region subset changed.
// usage: node view-check.mjs PAGE.html SCREENSHOT.png [--no-interact]
import { chromium } from 'playwright-core';
import { resolve } from 'node:path';

const [page_, shot] = process.argv.slice(2);
const interact = !process.argv.includes('--no-interact');
const url = 'file://' + resolve(page_);
const out = { errors: [], requests: [], dialogs: [] };
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  const ctx = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const page = await ctx.newPage();
  page.on('console', m => { if (m.type() === 'error') out.errors.push(m.text()); });
  page.on('pageerror', e => out.errors.push(String(e)));
  page.on('request', r => { if (r.url() !== url) out.requests.push(r.url()); });
  page.on('dialog', async d => { out.dialogs.push(d.message()); await d.dismiss(); });
  const t0 = Date.now();
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForSelector('body[data-ready="1"]', { timeout: 60000 });
  out.ready_ms = Date.now() - t0;
  out.sections = await page.$$eval('main section', s => s.map(x => x.id));
  out.rows = await page.evaluate(() => Object.fromEntries(
    [...document.querySelectorAll('main section')].map(s => [s.id, s.querySelectorAll('tbody tr').length])));
  out.charts = await page.$$eval('#charts canvas', c => c.length);
  out.points = await page.evaluate(() => window.memtapView.points);
  out.title = await page.title();
  out.cmd = await page.$eval('#cmd', e => e.textContent);
  out.range_before = await page.$eval('#range', e => e.textContent);
  out.shown_before = await page.$eval('#addr', e => e.dataset.shown);
  if (interact && out.charts) {
    // drag across the middle of the first chart: the time range shrinks
    const box = await (await page.$('#charts canvas')).boundingBox();
    const y = box.y + box.height / 2;
    await page.mouse.move(box.x + box.width * 0.35, y);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.5, y, { steps: 5 });
    await page.mouse.move(box.x + box.width * 0.65, y, { steps: 5 });
    await page.mouse.up();
    out.range_after = await page.$eval('#range', e => e.textContent);
    out.span_after = await page.evaluate(() => window.memtapView.state.t1 - window.memtapView.state.t0);
    out.shown_zoomed = await page.$eval('#addr', e => e.dataset.shown);
    await page.click('#pan-right'); // pan: the same width, later
    out.t0_panned = await page.evaluate(() => window.memtapView.state.t0);
    out.span_panned = await page.evaluate(() => window.memtapView.state.t1 - window.memtapView.state.t0);
    await page.click('#reset');
    // an address range: the first band's first half
    const seg = await page.evaluate(() => JSON.parse(document.getElementById('memtap-data').textContent).address.segments[0]);
    if (seg) {
      const lo = BigInt(seg.lo), hi = lo + BigInt(Math.round(seg.size / 2));
      await page.fill('#a-from', '0x' + lo.toString(16));
      await page.fill('#a-to', '0x' + hi.toString(16));
      await page.click('#a-apply');
      out.shown_addr = await page.$eval('#addr', e => e.dataset.shown);
      await page.click('#reset');
    }
    // a subset: the region with the most points
    const opts = await page.$$eval('#region-sel option', o => o.map(x => x.value));
    if (opts.length > 1) {
      await page.selectOption('#region-sel', opts[1]);
      out.shown_region = await page.$eval('#addr', e => e.dataset.shown);
      await page.selectOption('#region-sel', '-1');
    }
  }
  if (shot) await page.screenshot({ path: shot, fullPage: false });
} finally {
  await browser.close();
}
console.log(JSON.stringify(out));
