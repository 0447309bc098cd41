package main

import "testing"

func TestDistanceCommand(t *testing.T) {
	tests := []struct {
		a, b, want string
	}{
		// Seed 000's C example: 851459198 and 847263864 differ in 4 bits.
		{"0000000032c03c7e", "0000000032803878", "4\n"},
		{"8c3a5f7e9ecb3f35", "0X8C3A5F7E9ECB3F21", "2\n"},
		{"0000000020302202800d8e90e45cc488", "0000000020fc2282801d9e9ce4dcc6ea", "14\n"},
		// Seed 002's nilsimsa codes: 36 bits (score 92).
		{"773e2df0a02a319ec34a0b71d54029111da90838cbc20ecd3d2d4e18c25a3025",
			"47182cf0802a11dec24a3b75d5042d310ca90838c9d20ecc3d610e98560a3645", "36\n"},
	}
	for _, tt := range tests {
		out, errOut, code := runFP(t, "", "distance", tt.a, tt.b)
		if code != 0 || out != tt.want {
			t.Errorf("distance %s %s = %q (status %d, stderr %q), want %q", tt.a, tt.b, out, code, errOut, tt.want)
		}
	}
}

func TestDistanceErrors(t *testing.T) {
	tests := []struct {
		args []string
		msg  string
	}{
		{[]string{"distance", "8c3a5f7e9ecb3f35", "0000000020302202800d8e90e45cc488"}, "differ in width"},
		{[]string{"distance", "8c3a5f7e9ecb3f3", "8c3a5f7e9ecb3f35"}, "bad hex fingerprint"},
		{[]string{"distance", "8c3a5f7e9ecb3fzz", "8c3a5f7e9ecb3f35"}, "bad hex fingerprint"},
		{[]string{"distance", "8c3a5f7e9ecb3f35"}, "accepts 2 arg(s)"},
	}
	for _, tt := range tests {
		_, errOut, code := runFP(t, "", tt.args...)
		wantUsageError(t, errOut, code, tt.msg)
	}
}
