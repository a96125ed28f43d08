package dashboard

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"strings"
)

// cookieName carries a browser's session: an HMAC of the token, so the
// cookie proves knowledge of the token without being the token (it opens
// the dashboard, not the API).
const cookieName = "rbx_ui"

func (d *Dashboard) session() string {
	m := hmac.New(sha256.New, []byte(d.cfg.token))
	m.Write([]byte("rbx dashboard session v1"))
	return hex.EncodeToString(m.Sum(nil))
}

// authorized reports whether r carries the API's bearer token or the
// session cookie (always, when the server has no token).
func (d *Dashboard) authorized(r *http.Request) bool {
	if d.cfg.token == "" {
		return true
	}
	if got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		return equal(got, d.cfg.token)
	}
	c, err := r.Cookie(cookieName)
	return err == nil && equal(c.Value, d.session())
}

func equal(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// guard sends unauthorized pages to the login form and answers data
// routes with 401, as the API does.
func (d *Dashboard) guard(h http.Handler, page bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case d.authorized(r):
			h.ServeHTTP(w, r)
		case page && r.Header.Get("Authorization") == "":
			http.Redirect(w, r, Prefix+"/login?next="+r.URL.EscapedPath(), http.StatusSeeOther)
		default:
			w.Header().Set("WWW-Authenticate", `Bearer realm="rbx"`)
			writeJSON(w, http.StatusUnauthorized, map[string]any{"error": map[string]string{"code": "unauthorized",
				"message": "missing or wrong bearer token (Authorization: Bearer TOKEN, or log in at " + Prefix + "/login)"}})
		}
	})
}

type loginPage struct {
	page
	Next, Message string
}

func (d *Dashboard) loginPage(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = d.render(w, "login.html", loginPage{page: page{Title: "Log in"}, Next: safeNext(r.URL.Query().Get("next"))})
}

// login checks the token typed into the form and sets the session cookie.
func (d *Dashboard) login(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 8<<10)
	next := safeNext(r.PostFormValue("next"))
	if d.cfg.token != "" && !equal(strings.TrimSpace(r.PostFormValue("token")), d.cfg.token) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusUnauthorized)
		_ = d.render(w, "login.html", loginPage{page: page{Title: "Log in"}, Next: next, Message: "wrong token"})
		return
	}
	if d.cfg.token != "" {
		http.SetCookie(w, &http.Cookie{Name: cookieName, Value: d.session(), Path: Prefix, HttpOnly: true,
			Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode, MaxAge: 7 * 24 * 3600})
	}
	http.Redirect(w, r, next, http.StatusSeeOther)
}

func (d *Dashboard) logout(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: "", Path: Prefix, HttpOnly: true, MaxAge: -1,
		Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, Prefix+"/login", http.StatusSeeOther)
}

// safeNext keeps redirects on the dashboard (no open redirect).
func safeNext(next string) string {
	if !strings.HasPrefix(next, Prefix+"/") || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n") {
		return Prefix + "/"
	}
	return next
}
