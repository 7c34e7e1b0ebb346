//go:build browser

package timeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/felixsim/felixsim/node"
	"github.com/felixsim/felixsim/sim/runner"
)

// chromiumPath is Debian's chromium, which scripts/install-chromium.sh
// installs; `make timeline-test` (and so .ci/run) runs this test.
const chromiumPath = "/usr/bin/chromium"

// TestTimelineInChromium: the page of a run with a planted bug loads in
// headless Chromium without a console error, an exception or any network
// request beyond the file itself, shows the violated invariant's name and
// highlights its operations; a screenshot is kept in TIMELINE_OUT (or the
// temp dir) for a person to look at.
func TestTimelineInChromium(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Fatalf("%s missing (run scripts/install-chromium.sh): %v", chromiumPath, err)
	}
	res, err := runner.Run(runner.Options{Seed: 3, Defects: node.Defects{AckBeforeQuorum: true},
		KeepHistory: true, RecordTrace: true, Observe: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.OK() {
		t.Fatalf("seed 3 with ack-before-quorum passed; the page must show a violation:\n%s", res.Summary())
	}
	outDir := os.Getenv("TIMELINE_OUT")
	if outDir == "" {
		outDir = filepath.Join(os.TempDir(), "felixsim-timeline-test")
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(outDir, "timeline.html")
	f, err := os.Create(page)
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(f, res); err != nil {
		t.Fatal(err)
	}
	f.Close()
	shot, problems, text, violating := load(t, page)
	if len(problems) > 0 {
		t.Fatalf("page %s: %d problems:\n%s", page, len(problems), strings.Join(problems, "\n"))
	}
	inv := string(res.Violations[0].Invariant)
	if !strings.Contains(text, inv) || !strings.Contains(text, "FAIL") {
		t.Fatalf("page does not show the violation %s: %.300q", inv, text)
	}
	if violating < 1 {
		t.Fatalf("page highlights %d violating operations", violating)
	}
	png := filepath.Join(outDir, "timeline.png")
	if err := os.WriteFile(png, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("timeline %s, screenshot %s (%d bytes), %d violating ops highlighted", page, png, len(shot), violating)
}

// load opens page in a fresh headless Chromium and returns a screenshot,
// every console error, exception and outside request, the findings' text
// and the count of highlighted operations.
func load(t *testing.T, page string) (shot []byte, problems []string, text string, violating int) {
	profile := freshProfile(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(profile), chromedp.WindowSize(1600, 1000),
	}
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	var mu sync.Mutex
	url := "file://" + page
	chromedp.ListenTarget(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.APITypeError || e.Type == runtime.APITypeWarning {
				problems = append(problems, fmt.Sprintf("console %s: %v", e.Type, e.Args))
			}
		case *runtime.EventExceptionThrown:
			problems = append(problems, "exception: "+e.ExceptionDetails.Error())
		case *log.EventEntryAdded:
			if e.Entry.Level == log.LevelError {
				problems = append(problems, "log error: "+e.Entry.Text)
			}
		case *network.EventRequestWillBeSent:
			if e.Request.URL != url && !strings.HasPrefix(e.Request.URL, "data:") {
				problems = append(problems, "request outside the page: "+e.Request.URL)
			}
		}
	})
	var nodes []*cdp.Node
	err := chromedp.Run(ctx, log.Enable(), network.Enable(),
		chromedp.Navigate(url),
		chromedp.WaitVisible("#findings", chromedp.ByID),
		chromedp.Text("#findings", &text, chromedp.ByID),
		chromedp.Nodes("g.violating", &nodes, chromedp.ByQueryAll),
		chromedp.Click("a.evidence", chromedp.ByQuery),
		chromedp.Sleep(200*time.Millisecond),
		chromedp.FullScreenshot(&shot, 100),
	)
	if err != nil {
		t.Fatalf("chromium on %s: %v", page, err)
	}
	var h1 string
	if err := chromedp.Run(ctx, chromedp.Text("h1", &h1, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	return shot, append([]string(nil), problems...), h1 + "\n" + text, len(nodes)
}

// freshProfile is an empty Chromium profile directory, removed after the
// test; Chromium's helper processes may still write to it for a moment
// after the browser is gone, so removal is retried for up to 5 s.
func freshProfile(t *testing.T) string {
	dir, err := os.MkdirTemp("", "felixsim-chromium-profile-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		var err error
		for i := 0; i < 50; i++ {
			if err = os.RemoveAll(dir); err == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Logf("chromium profile %s not removed: %v", dir, err)
	})
	return dir
}
