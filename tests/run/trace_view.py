"""trace_view.py TRACE OUT.png [SLICE.png]: an `occcalc run --trace`
file opened in a real trace viewer: the Performance panel of the Chrome
DevTools that Chromium carries (Debian's Chromium 156 answers
chrome://tracing with ERR_FAILED, and Perfetto UI needs the network). Chromium runs
headless and is driven over the DevTools protocol through a pipe
(--remote-debugging-pipe: no port, no package beyond Python's standard
library). The trace goes through the panel's own "Load trace..." file
input, as a user loads one; then what the panel parsed is read back from
its models and the page is photographed with every track expanded
(OUT.png) and with a slice selected (the one of the shortest name), whose
Summary shows its args (SLICE.png).

Fails (exit 1, one line naming the fault) where the panel throws or logs
an error, loads nothing, parses fewer events than the file holds, places
fewer slices on its tracks than the file's complete ("X") events, shows
a selected slice's Summary without its args, or starts its time range
after a slice (that slice would lie off the left edge, unreachable).
Prints what the viewer saw: events, tracks and their slices, time range.
Exit 77 where no Chromium is found ($CHROMIUM, chromium,
chromium-browser)."""
import base64
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time

TIMEOUT_S = 60
IDLE_S = 5
APP = 'devtools://devtools/bundled/devtools_app.html'
# Modules of the DevTools front end, imported inside its own page: the
# same instances the panel uses.
PANEL = ("(await import('./panels/timeline/timeline.js'))"
         ".TimelinePanel.TimelinePanel.instance()")


def fail(what):
    print('trace_view: %s: %s' % (sys.argv[1], what))
    sys.exit(1)


class Browser:
    """Headless Chromium over --remote-debugging-pipe: it reads commands
    on its fd 3 and writes replies on fd 4, each a JSON text ended by a
    NUL byte."""

    def __init__(self, exe, profile):
        to_chrome, self.w = os.pipe()
        self.r, from_chrome = os.pipe()

        def child():
            # dup first: a pipe end may already be 3 or 4, and dup2 onto
            # itself would keep its close-on-exec flag.
            a, b = os.dup(to_chrome), os.dup(from_chrome)
            os.dup2(a, 3)
            os.dup2(b, 4)
        args = [exe, '--headless=new', '--remote-debugging-pipe',
                '--user-data-dir=' + profile, '--no-first-run',
                '--disable-gpu', '--window-size=1600,1300']
        if os.geteuid() == 0:
            args.append('--no-sandbox')   # Chromium refuses root otherwise
        self.log = open(os.path.join(profile, 'chromium.log'), 'w')
        self.proc = subprocess.Popen(args, preexec_fn=child, close_fds=False,
                                     stdin=subprocess.DEVNULL,
                                     stdout=self.log, stderr=self.log)
        os.close(to_chrome)
        os.close(from_chrome)
        self.buf = b''
        self.last_id = 0
        self.events = []

    def send(self, method, params=None, session=None, timeout=TIMEOUT_S):
        self.last_id += 1
        msg = {'id': self.last_id, 'method': method, 'params': params or {}}
        if session:
            msg['sessionId'] = session
        os.write(self.w, json.dumps(msg).encode() + b'\0')
        end = time.time() + timeout
        while True:
            m = self.receive(end - time.time())
            if m is None:
                fail('Chromium gave no answer to %s in %d s' % (method, timeout))
            if m.get('id') == self.last_id:
                if 'error' in m:
                    fail('%s: %s' % (method, m['error'].get('message')))
                return m['result']
            self.events.append(m)

    def receive(self, timeout):
        while b'\0' not in self.buf:
            if timeout <= 0:
                return None
            ready, _, _ = select.select([self.r], [], [], timeout)
            if not ready:
                return None
            chunk = os.read(self.r, 1 << 20)
            if not chunk:
                fail('Chromium closed its pipe (see its log)')
            self.buf += chunk
        msg, self.buf = self.buf.split(b'\0', 1)
        return json.loads(msg)

    def close(self):
        try:
            os.write(self.w, json.dumps({'id': 0, 'method': 'Browser.close'}).encode() + b'\0')
            self.proc.wait(10)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()


class Page:
    def __init__(self, browser, url):
        self.b = browser
        target = browser.send('Target.createTarget', {'url': 'about:blank'})['targetId']
        self.s = browser.send('Target.attachToTarget',
                              {'targetId': target, 'flatten': True})['sessionId']
        for domain in ('Page', 'Runtime', 'DOM'):
            self.send(domain + '.enable')
        self.send('Emulation.setDeviceMetricsOverride',
                  {'width': 1600, 'height': 1300, 'deviceScaleFactor': 1, 'mobile': False})
        self.send('Page.navigate', {'url': url})

    def send(self, method, params=None):
        return self.b.send(method, params, session=self.s)

    def js(self, body):
        """The value of an async function's body run in the page, or
        (None, the exception's text)."""
        r = self.send('Runtime.evaluate', {
            'expression': '(async () => {%s})()' % body,
            'returnByValue': True, 'awaitPromise': True})
        if 'exceptionDetails' in r:
            d = r['exceptionDetails']
            return None, d.get('exception', {}).get('description', d.get('text'))
        return r['result'].get('value'), None

    def until(self, body, what, timeout=TIMEOUT_S, shot=None):
        """Waits for body to return true; fails on a timeout or on an
        error the page throws or logs meanwhile (photographed into shot
        first, when given)."""
        end = time.time() + timeout
        seen = len(self.b.events)
        while True:
            v, err = self.js(body)
            if v:
                return v
            thrown = self.page_error(seen)
            if thrown or time.time() > end:
                if shot:
                    self.screenshot(shot)
                fail('%s: %s' % (what, thrown or 'not within %d s (%s)' % (timeout, err or v)))
            time.sleep(0.25)

    def until_true(self, check, what, timeout=TIMEOUT_S, shot=None):
        """until, for a Python check."""
        end = time.time() + timeout
        seen = len(self.b.events)
        while not check():
            thrown = self.page_error(seen)
            if thrown or time.time() > end:
                if shot:
                    self.screenshot(shot)
                fail('%s: %s' % (what, thrown or 'not within %d s' % timeout))
            time.sleep(0.25)

    def page_error(self, since):
        """The first uncaught exception or console error the page
        reported after event number since, or None."""
        for e in self.b.events[since:]:
            p = e.get('params', {})
            if e.get('method') == 'Runtime.exceptionThrown':
                d = p.get('exceptionDetails', {})
                return 'the viewer threw ' + (d.get('exception', {}).get('description') or d.get('text', '?')).split('\n')[0]
            if e.get('method') == 'Runtime.consoleAPICalled' and p.get('type') == 'error':
                return 'the viewer logged ' + ' '.join(str(a.get('value', a.get('description', ''))) for a in p.get('args', [])).split('\n')[0][:300]
        return None

    def screenshot(self, path):
        png = self.send('Page.captureScreenshot', {'format': 'png'})['data']
        with open(path, 'wb') as f:
            f.write(base64.b64decode(png))

    def file_input(self):
        """The backend id of the page's <input type=file> that takes
        .json, through shadow roots."""
        todo = [self.send('DOM.getDocument', {'depth': -1, 'pierce': True})['root']]
        while todo:
            n = todo.pop()
            a = n.get('attributes', [])
            a = dict(zip(a[::2], a[1::2]))
            if n.get('nodeName') == 'INPUT' and a.get('type') == 'file' and '.json' in a.get('accept', ''):
                return n['backendNodeId']
            todo += n.get('children', []) + n.get('shadowRoots', [])
        fail('the Performance panel has no file input to load a trace through')


READ_BACK = PANEL + """;
const d = p.getParsedTraceForLayoutTests();
const raw = p.getTraceEngineRawTraceEventsForLayoutTests();
const tracks = [];
for (const [pid, proc] of d.Renderer.processes)
  for (const [tid, th] of proc.threads)
    tracks.push({pid, tid, name: th.name, slices: th.entries.length});
return {events: raw.length, tracks, min: d.Meta.traceBounds.min,
        max: d.Meta.traceBounds.max};"""


def main():
    if len(sys.argv) < 3:
        print('usage: trace_view.py TRACE OUT.png [SLICE.png]', file=sys.stderr)
        sys.exit(2)
    trace, out_png = os.path.abspath(sys.argv[1]), sys.argv[2]
    slice_png = sys.argv[3] if len(sys.argv) > 3 else None
    exe = next((x for x in (os.environ.get('CHROMIUM'), 'chromium', 'chromium-browser')
                if x and shutil.which(x)), None)
    if not exe:
        print('skipped: no chromium')
        sys.exit(77)
    # The file's own count; the viewer still gets a file that is no trace,
    # to say what it makes of it.
    try:
        with open(trace) as f:
            events = json.load(f)['traceEvents']
        slices = [e for e in events if e.get('ph') == 'X']
    except (OSError, ValueError, TypeError, KeyError, AttributeError) as e:
        events, slices, why = None, [], '%s: %s' % (type(e).__name__, e)
    if events is None and not os.path.isfile(trace):
        fail(why)
    with tempfile.TemporaryDirectory() as profile:
        b = Browser(exe, profile)
        try:
            check(Page(b, APP), trace, events, slices, out_png, slice_png)
            if events is None:
                fail('the viewer loaded it, but it is no trace: ' + why)
        finally:
            b.close()


def check(page, trace, events, slices, out_png, slice_png):
    page.until("return await import('./ui/legacy/legacy.js')"
               ".then(UI => UI.ViewManager.ViewManager.instance().showView('timeline'))"
               ".then(() => true)", 'the Performance panel to open')
    # The panel builds its file input, then rebuilds it: load through the
    # one it keeps, once it is idle.
    page.until("const p = " + PANEL + "; return p.state === 'Idle' &&"
               " !!p.fileSelectorElement?.isConnected", 'the Performance panel to settle')
    # A user who has seen it once: the flame chart's shortcuts dialog
    # would cover the tracks.
    page.js("(await import('./core/common/common.js')).Settings.Settings.instance()"
            ".createSetting('timeline.user-had-shortcuts-dialog-opened-once', false)"
            ".set(true); return true;")
    page.send('DOM.setFileInputFiles', {'files': [trace], 'backendNodeId': page.file_input()})
    # Loaded when the panel holds a parsed trace. A failed load throws or
    # logs an error in the page (and shows "Recording failed"); a trace
    # with no event leaves the panel idle on its landing page, saying
    # nothing.
    idle_since = [None]

    def loaded():
        v, err = page.js("const p = " + PANEL + "; try { p.getParsedTraceForLayoutTests();"
                         " return 'loaded'; } catch (e) { return p.state; }")
        if v == 'Idle':
            idle_since[0] = idle_since[0] or time.time()
            if time.time() - idle_since[0] > IDLE_S:
                page.screenshot(out_png)
                fail('the viewer loaded nothing: idle for %d s with no trace' % IDLE_S)
        else:
            idle_since[0] = None
        return v == 'loaded'
    page.until_true(loaded, 'the trace to load', shot=out_png)
    seen, err = page.js("const p = " + READ_BACK)
    if err:
        fail('reading the panel back: ' + err)
    # The whole trace in view, every track open.
    _, err = page.js("const p = " + PANEL + "; const fc = p.getFlameChart().getMainFlameChart();"
                     " const g = fc.timelineData()?.groups ?? [];"
                     " g.forEach((_, i) => fc.expandGroup(i, true));"
                     " (await import('./services/trace_bounds/trace_bounds.js')).TraceBounds"
                     ".BoundsManager.instance().setTimelineVisibleWindow("
                     "p.getParsedTraceForLayoutTests().Meta.traceBounds); return true;")
    if err:
        fail('showing the whole trace: ' + err)
    time.sleep(1)
    page.screenshot(out_png)
    # A slice selected, as a user clicks one: the Summary below the tracks
    # shows its args; made tall enough to show them all in SLICE.png, its
    # text read back through shadow roots.
    picked, err = page.js("const p = " + PANEL + "; const d = p.getParsedTraceForLayoutTests();"
                     " const T = await import('./panels/timeline/timeline.js');"
                     " const all = [...d.Renderer.processes.values()]"
                     ".flatMap(pr => [...pr.threads.values()].flatMap(th => th.entries));"
                     " if (!all.length) return null;"
                     " const shortest = all.reduce((a, e) => e.name.length < a.name.length ? e : a);"
                     " p.getFlameChart().setSelectionAndReveal("
                     "T.TimelineSelection.selectionFromEvent(shortest)); return shortest.name;")
    if err or not picked:
        fail('selecting a slice: ' + (err or 'the viewer shows none'))
    time.sleep(1)
    summary, err = page.js(
        "const fc = (" + PANEL + ").getFlameChart(); fc.detailsSplitWidget.setSidebarSize(760);"
        " const text = n => n.nodeType === 3 ? n.data : ['STYLE', 'SCRIPT'].includes(n.nodeName) ? '' :"
        " [...(n.shadowRoot ? n.shadowRoot.childNodes : []), ...n.childNodes].map(text).join(' ');"
        " return text(fc.detailsView.element);")
    if err:
        fail('reading the Summary: ' + err)
    if slice_png:
        time.sleep(1)
        page.screenshot(slice_png)
    if events is None:
        return
    shown = sum(t['slices'] for t in seen['tracks'])
    if not isinstance(seen['min'], (int, float)) or not isinstance(seen['max'], (int, float)):
        fail('the viewer\'s time range is not a number (%r..%r): it cannot place the slices'
             % (seen['min'], seen['max']))
    print('trace_view: %s: the DevTools Performance panel parsed %d of %d events; '
          'tracks %s; %d of %d slices on them; time range %.3f..%.3f us'
          % (os.path.basename(trace), seen['events'], len(events),
             ', '.join('%s (pid %s tid %s): %d' % (t['name'], t['pid'], t['tid'], t['slices'])
                       for t in seen['tracks']),
             shown, len(slices), seen['min'], seen['max']))
    if seen['events'] < len(events):
        fail('the viewer parsed %d events of %d' % (seen['events'], len(events)))
    if not slices or shown != len(slices):
        fail('the viewer placed %d slices of %d on its tracks' % (shown, len(slices)))
    missing = [k for k in slices[0].get('args', {}) if '"%s"' % k not in summary]
    if missing:
        fail('the Summary of a selected slice does not show args %s' % ', '.join(missing))
    print('trace_view: the Summary of a selected slice: %s' % ' '.join(summary.split())[:400])
    first = min(slices, key=lambda e: e['ts'])
    if first['ts'] < seen['min']:
        fail('the viewer\'s time range starts at %.3f us, after the first slice (ts %r): '
             'that slice lies before its left edge' % (seen['min'], first['ts']))


main()
