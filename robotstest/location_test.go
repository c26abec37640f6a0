package robotstest_test

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/robotsguard/robotsguard/robotstest"
)

// childEnv, set, makes TestReportedLineChild run: TestReportedLine runs it
// in a process of its own, to see what the testing package prints.
const childEnv = "ROBOTSTEST_REPORTED_LINE_CHILD"

// TestReportedLine: a disallowed request is reported at the line of the
// test that made the Origin, as go test prints it, not at a line inside
// robotstest; on the Go versions the module supports (the test runs with
// whichever runs it).
func TestReportedLine(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		t.Skip("in the child process")
	}
	want := markedLines(t, "location_test.go")
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestReportedLineChild$", "-test.v", "-test.timeout=2m")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the child passed, want it failed:\n%s", out)
	}
	var wrong []string
	if strings.Contains(string(out), "origin.go:") {
		wrong = append(wrong, "a failure is reported inside robotstest")
	}
	// Each subtest's failure and record are printed at its marked line.
	for name, line := range want {
		at := "location_test.go:" + strconv.Itoa(line) + ": robotstest: "
		for _, msg := range []string{
			at + `GET /admin/ from "FooBot/1.0": disallowed by "Disallow: /admin/" (line 2, group "*" at line 1)`,
			at + "1 of the 2 requests to http://",
		} {
			if !strings.Contains(string(out), msg) {
				wrong = append(wrong, fmt.Sprintf("%s: no %q", name, msg))
			}
		}
	}
	if len(wrong) > 0 {
		t.Errorf("%s; the child printed:\n%s", strings.Join(wrong, "; "), out)
	}
}

// markedLines returns the lines of file that end with a comment saying
// where NAME is reported, by NAME.
func markedLines(t *testing.T, file string) map[string]int {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	marked := map[string]int{}
	const mark = "// reported " + "here: " // not itself a mark
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if _, name, ok := strings.Cut(sc.Text(), mark); ok {
			marked[name] = n
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(marked) != 3 {
		t.Fatalf("%d marked lines in %s, want 3", len(marked), file)
	}
	return marked
}

const adminRobots = "User-agent: *\nDisallow: /admin/\n"

// TestReportedLineChild fetches robots.txt, then a disallowed page, in
// three ways of making an Origin.
func TestReportedLineChild(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		t.Skip("run by TestReportedLine")
	}
	t.Run("NewOrigin", func(t *testing.T) {
		o := robotstest.NewOrigin(t, adminRobots) // reported here: NewOrigin
		crawlAdmin(t, o)
	})
	t.Run("NewUnstartedOrigin", func(t *testing.T) {
		o := robotstest.NewUnstartedOrigin(t, adminRobots) // reported here: NewUnstartedOrigin
		o.Start()
		crawlAdmin(t, o)
	})
	t.Run("helper", func(t *testing.T) {
		o := newAdminOrigin(t) // reported here: helper
		crawlAdmin(t, o)
	})
}

// newAdminOrigin is a helper of the user's: failures are reported at its
// caller's line.
func newAdminOrigin(t *testing.T) *robotstest.Origin {
	t.Helper()
	return robotstest.NewOrigin(t, adminRobots)
}

// crawlAdmin fetches robots.txt, then /admin/, as FooBot/1.0, through a
// plain client that does not obey robots.txt.
func crawlAdmin(t *testing.T, o *robotstest.Origin) {
	for _, path := range []string{"/robots.txt", "/admin/"} {
		if _, _, err := get(t, &http.Client{}, o.URL+path, "FooBot/1.0"); err != nil {
			t.Fatal(err)
		}
	}
}
