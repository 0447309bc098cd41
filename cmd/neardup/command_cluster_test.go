package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

func TestCluster(t *testing.T) {
	in := fmt.Sprintf("{\"id\":\"a\",\"text\":%q}\n{\"id\":\"x\",\"text\":%q}\n{\"id\":\"b\",\"text\":%q}\n{\"id\":\"c\",\"text\":%q}\n{\"id\":\"y\",\"text\":%q}\n{\"id\":\"z\",\"text\":\"\"}\n",
		fox, other, fox2, "Something else entirely, about gardens and the winter.", strings.ToUpper(other))
	tests := []struct {
		args []string
		want string
		code int
	}{
		{nil, "{\"cluster\":1,\"representative\":\"a\",\"members\":[\"a\",\"b\"]}\n{\"cluster\":2,\"representative\":\"x\",\"members\":[\"x\",\"y\"]}\n", 0},
		{[]string{"--strict"}, "{\"cluster\":1,\"representative\":\"a\",\"members\":[\"a\",\"b\"]}\n{\"cluster\":2,\"representative\":\"x\",\"members\":[\"x\",\"y\"]}\n", 0},
		{[]string{"--profile", "nilsimsa"}, "", 2},
	}
	for _, tc := range tests {
		var out, errb bytes.Buffer
		code := run(append([]string{"cluster"}, tc.args...), strings.NewReader(in), &out, &errb)
		if code != tc.code || out.String() != tc.want {
			t.Errorf("%v: exit %d, stderr %s, output:\n%s\nwant:\n%s", tc.args, code, errb.String(), out.String(), tc.want)
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"cluster"}, strings.NewReader("{bad\n"), &out, &errb); code != 2 || out.Len() != 0 || !strings.Contains(errb.String(), "standard input:1: malformed JSON") {
		t.Errorf("bad input: exit %d, out %q, stderr %q", code, out.String(), errb.String())
	}
}
