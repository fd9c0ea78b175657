# selspec.sh - what the selective profiling tests share, sourced: reading
# path specs and full profiles with awk alone, so that pap's spec reader
# and selective plan are never their own oracle.
#
# spec_key: an awk function key() giving a spec line's "FUNCTION
# BLOCK..." with its repeats written out (fields name=value skipped,
# [lines] cut, "(" ... ")^N" expanded).
spec_key='function key(   i, w, t, d, n, r, k, st) {
	d = 0; st[0] = ""; n = split($2, t, ":"); k = t[n]
	for (i = 3; i <= NF; i++) {
		w = $i
		if (w ~ /=/) continue
		if (w == "(") { st[++d] = ""; continue }
		if (w ~ /^\)\^/) {
			n = substr(w, 3) + 0; r = ""
			while (n-- > 0) r = r st[d]
			d--; st[d] = st[d] r; continue
		}
		sub(/\[.*/, "", w); st[d] = st[d] " " w
	}
	return k st[0]
}'

# sel_expect PATHS SPEC: "LINE COUNT" of each path of SPEC, the count
# from the full run's `pap-decode --format=paths` output PATHS (0 when
# absent): a path that ends where the function may return and be cut
# short (a call that may longjmp) is the returning one
sel_expect() {
	awk "$spec_key"'
	     NR == FNR { k = $0; sub(/^[^ ]+ [^ ]+ [^ ]+/, "", k); k = $1 k
			 if ($3 == 1) cnt[k] += $2; else cut[k] += $2; next }
	     $1 == "path" { k = key()
			    print FNR, (k in cnt) ? cnt[k] : \
				       (k in cut) ? cut[k] : 0 }' "$1" "$2"
}

# sel_acyclic [SPEC]: SPEC's paths (or stdin's) that enter no block
# twice (what spp takes), with its other lines
sel_acyclic() {
	awk "$spec_key"'
	     $1 != "path" { print; next }
	     { n = split(key(), f, " "); delete c
	       for (i = 2; i <= n; i++) if (c[f[i]]++) next; print }' "$@"
}

# sel_decode DIR WHAT: DIR/pap.prof as a `pap-decode --format=selective`
# report in DIR/sel.txt (pap-decode is $decode); when it fails, a failed
# test "WHAT: decode" with the decoder's message, and status 1
sel_decode() {
	(cd "$1" && "$decode" --format=selective pap.prof >sel.txt \
		2>err.txt) && return 0
	not_ok "$2: decode"
	diag "$1/err.txt"
	return 1
}

# sel_counts_bad DIR WHAT N: after sel_got, sel_expect and sel_acts into
# DIR/got, DIR/want and DIR/acts, is a count of a path of interest or of
# a function's activations (against a.acts, the full run's) wrong, or
# are fewer than N functions counted?  Then a failed test named WHAT
# says which, and status 0
sel_counts_bad() {
	if ! cmp -s "$1/want" "$1/got"; then
		not_ok "$2: counts of the paths of interest"
		diff "$1/want" "$1/got" | head -10 | sed 's/^/#   /'
	elif ! join "$1/acts" a.acts | awk '$2 != $3 { exit 1 }' ||
	     [ "$(wc -l <"$1/acts")" -lt "$3" ]; then
		not_ok "$2: activations"
		join "$1/acts" a.acts | head | sed 's/^/#   /'
	else
		return 1
	fi
	return 0
}

# sel_got DIR: "LINE COUNT" of each path of interest in DIR/sel.txt (a
# `pap-decode --format=selective` report), sorted
sel_got() {
	awk '/^ +[0-9]+  / { n = split($2, w, ":"); print w[n], $1 }' \
		"$1/sel.txt" | sort -n
}

# sel_acts DIR: "FUNCTION ACTIVATIONS" of each selective function of
# DIR/sel.txt, sorted
sel_acts() {
	awk '/^function / { f = $2 }
	     /^  activations / { sub(",", "", $2); print f, $2 }' \
		"$1/sel.txt" | sort
}

# sel_acts_early DIR: "FUNCTION ACTIVATIONS ENDED-EARLY" of each
# selective function of DIR/sel.txt, sorted
sel_acts_early() {
	awk '/^function / { f = $2 }
	     /^  activations / { sub(",", "", $2); print f, $2, $5 }' \
		"$1/sel.txt" | sort
}

# sel_full_acts PATHS: "FUNCTION ACTIVATIONS" of a full run's
# --format=paths output, sorted
sel_full_acts() {
	awk '{ t[$1] += $2 } END { for (f in t) print f, t[f] }' "$1" | sort
}
