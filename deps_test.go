package robotsguard_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestNoRedisDependency: go-redis belongs to the robotsredis module alone;
// users of the root module do not download or link it.
func TestNoRedisDependency(t *testing.T) {
	const redis = "github.com/redis/"
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(mod), redis) {
		t.Errorf("go.mod requires %s", redis)
	}
	if testing.Short() {
		return
	}
	out, err := exec.Command("go", "list", "-deps", "-test", "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, redis) {
			t.Errorf("the root module imports %s", p)
		}
	}
}
