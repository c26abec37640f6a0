package policy_test

import (
	"testing"

	"github.com/robotsguard/robotsguard/policy"
)

// TestGroupRepeatedAgents checks that an agent asked about again, in any
// case, gets the group it got the first time, and that values close to a
// token asked about before ("foo\x7fbot" for foo_bot, "foobot " with a
// space, "foobot/1.0") get the group their own token selects (RFC 9309
// §2.2.1: product tokens match without regard to case).
func TestGroupRepeatedAgents(t *testing.T) {
	const body = "user-agent: foo_bot\ndisallow: /a\n\nuser-agent: foobot\ndisallow: /b\n\nuser-agent: *\ndisallow: /c\n"
	for _, d := range []policy.Dialect{policy.RFC9309, policy.Google} {
		r := policy.Parser{Dialect: d}.Parse([]byte(body))
		cases := []struct{ agent, want string }{
			{"foo_bot", "/a"}, {"FOO_BOT", "/a"}, {"Foo_Bot", "/a"}, {"foo_bot", "/a"},
			{"foo\x7fbot", "/c"}, {"FOO\x7fBOT", "/c"},
			{"foobot", "/b"}, {"FooBot", "/b"}, {"FooBot/1.0", "/b"}, {" FooBot ", "/b"},
			{"foobot\x00", "/c"}, {"foobo", "/c"}, {"foobot2", "/c"}, {"other", "/c"}, {"OTHER", "/c"},
		}
		for round := 0; round < 2; round++ {
			for _, c := range cases {
				g := r.Group(c.agent)
				for _, p := range []string{"/a", "/b", "/c"} {
					if got, want := g.Decide(p).Allowed, p != c.want; got != want {
						t.Errorf("%v, round %d: Group(%q).Allowed(%q) = %v, want %v", d, round, c.agent, p, got, want)
					}
				}
			}
		}
	}
}
