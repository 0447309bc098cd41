package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
)

// A page of another site can reach a server on loopback through the
// visitor's browser by DNS rebinding: its name, first pointed at the
// attacker's server, is pointed at 127.0.0.1 once the page has loaded, and
// the page's requests then go to the local server as same-origin requests
// (Origin and Host both the attacker's name), which CrossOriginProtection
// lets through: the page can read what is stored and delete it. The Host
// header still names the attacker's site, so a server that answers only
// the names it is known by is safe; that is what hostPolicy checks.

// hostPolicy is Options.AllowedHosts made ready to match Host headers.
type hostPolicy struct {
	// off is set by "*": every Host is served.
	off bool
	// given reports whether AllowedHosts was set, in which case every
	// request is checked, not only those of a loopback listener.
	given bool
	// names are the host names allowed, lower-case, without a final dot.
	names map[string]bool
	// suffixes are the suffixes of the "*.example.com" entries, with
	// their dot (".example.com").
	suffixes []string
	// ips are the IP addresses allowed.
	ips []netip.Addr
}

// parseHosts reads Options.AllowedHosts.
func parseHosts(list []string) (hostPolicy, error) {
	p := hostPolicy{given: len(list) > 0, names: map[string]bool{}}
	for _, e := range list {
		if e == "*" {
			if len(list) > 1 {
				return p, errors.New(`server: allowed host "*" allows every host, and takes no other with it`)
			}
			p.off = true
			continue
		}
		h := strings.TrimSuffix(strings.ToLower(e), ".")
		if ip, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")); err == nil {
			p.ips = append(p.ips, ip.Unmap().WithZone(""))
			continue
		}
		suffix, wild := strings.CutPrefix(h, "*.")
		if !validName(suffix) {
			return p, fmt.Errorf("server: allowed host %q: want a host name without a port (example.com), *.domain (the names under it), an IP address, or * alone (every host)", e)
		}
		if wild {
			p.suffixes = append(p.suffixes, "."+suffix)
		} else {
			p.names[h] = true
		}
	}
	return p, nil
}

// validName reports whether s is a host name as a Host header can hold
// it: letters, digits, hyphens, underscores and dots, no empty label.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for label := range strings.SplitSeq(s, ".") {
		if label == "" {
			return false
		}
		for _, c := range []byte(label) {
			if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}

// normalHost returns the host of a Host header without its port and IPv6 brackets, lower-case, without a final
// dot: "LocalHost.:8080" is "localhost", "[::1]:8080" is "::1".
func normalHost(hostport string) string {
	h := hostport
	if strings.HasPrefix(h, "[") {
		if end := strings.IndexByte(h, ']'); end > 0 {
			h = h[1:end]
		}
	} else if i := strings.LastIndexByte(h, ':'); i >= 0 && strings.Count(h, ":") == 1 {
		h = h[:i]
	}
	return strings.TrimSuffix(strings.ToLower(h), ".")
}

// allows reports whether a request whose Host header is hostport, which
// came in on the local address local (invalid when unknown), may be
// served: localhost and its subdomains, loopback addresses, the address
// the request came in on, and the allowed hosts.
func (p *hostPolicy) allows(hostport string, local netip.Addr) bool {
	if p.off {
		return true
	}
	h := normalHost(hostport)
	if h == "" {
		// An HTTP/1.0 request without a Host: a program's, as browsers
		// always send one.
		return true
	}
	if ip, err := netip.ParseAddr(h); err == nil {
		ip = ip.Unmap().WithZone("")
		if ip.IsLoopback() || ip == local {
			return true
		}
		for _, a := range p.ips {
			if ip == a {
				return true
			}
		}
		return false
	}
	if h == "localhost" || strings.HasSuffix(h, ".localhost") || p.names[h] {
		return true
	}
	for _, s := range p.suffixes {
		if strings.HasSuffix(h, s) {
			return true
		}
	}
	return false
}

// checkHostsKey marks the contexts of requests that Serve took on a
// loopback listener, whose Host headers are checked even when
// Options.AllowedHosts is nil.
type checkHostsKey struct{}

// isLoopback reports whether a listens on a loopback address only.
func isLoopback(a net.Addr) bool {
	ta, ok := a.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}

// localAddr is the local address of the connection that r came in on, or
// the zero Addr when the server did not say (a handler called directly).
func localAddr(r *http.Request) netip.Addr {
	if a, ok := r.Context().Value(http.LocalAddrContextKey).(*net.TCPAddr); ok {
		return a.AddrPort().Addr().Unmap().WithZone("")
	}
	return netip.Addr{}
}

// checkHosts wraps h with the Host check: a request it does not allow
// gets 403 host_not_allowed, before anything else sees it.
func (s *Server) checkHosts(h http.Handler) http.Handler {
	p := s.hosts
	if p.off {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if (p.given || r.Context().Value(checkHostsKey{}) != nil) && !p.allows(r.Host, localAddr(r)) {
			s.metrics.refused.WithLabelValues("host_not_allowed").Inc()
			s.hostsRefused.note(r.Host, s.opts.Logger)
			writeError(w, hostNotAllowed(r.Host))
			return
		}
		h.ServeHTTP(w, r)
	})
}

// refusedHosts remembers the Host names a server has refused, to log the
// first refusal of each: after an upgrade behind a proxy that passes its
// own names on, every request is refused, and the log says why once per
// name rather than once per request.
type refusedHosts struct {
	mu    sync.Mutex
	names map[string]bool
}

// maxRefusedHosts bounds the names logged, so that a client sending a new
// Host with every request cannot fill the log or the memory.
const maxRefusedHosts = 16

// note logs the refusal of a request whose Host is hostport, unless its
// host was refused before or maxRefusedHosts hosts have been.
func (rh *refusedHosts) note(hostport string, log *slog.Logger) {
	h := normalHost(hostport)
	rh.mu.Lock()
	first := !rh.names[h] && len(rh.names) < maxRefusedHosts
	if first {
		if rh.names == nil {
			rh.names = make(map[string]bool)
		}
		rh.names[h] = true
	}
	last := len(rh.names) == maxRefusedHosts
	rh.mu.Unlock()
	if !first {
		return
	}
	msg := "refused a request whose Host this server does not answer to (403 host_not_allowed); if it is a name of this server, start it with --allowed-hosts"
	if last {
		msg += "; other hosts refused from now on are counted in neardup_http_refused_total, not logged"
	}
	log.Warn(msg, "host", hostport, "allow", hostFlag(hostport))
}

// hostNotAllowed is the answer to a request whose Host is not allowed.
func hostNotAllowed(hostport string) *apiError {
	return newError(http.StatusForbidden, "host_not_allowed", fmt.Sprintf(
		"the Host header %q names none of the hosts this server answers to (localhost, loopback addresses and those of --allowed-hosts), so that a page of another site cannot reach it by DNS rebinding; if it is a name of this server, start the server with --allowed-hosts %s", hostport, hostFlag(hostport)))
}

// hostFlag is what --allowed-hosts needs to allow hostport: its host.
func hostFlag(hostport string) string {
	h := normalHost(hostport)
	if _, err := netip.ParseAddr(h); err == nil || validName(h) {
		return h
	}
	return "NAME" // nothing worth echoing into a command line
}

// withHostCheck returns ctx marked for the Host check when ln listens on
// loopback only (see Options.AllowedHosts).
func withHostCheck(ctx context.Context, ln net.Listener) context.Context {
	if isLoopback(ln.Addr()) {
		return context.WithValue(ctx, checkHostsKey{}, true)
	}
	return ctx
}
