# selective.awk - the tables of bench/selective.sh, one per part:
#   part=probes, totals: input "BENCH TOP PSP NFNS ALL FULL SEL" (SEL a
#     number of probe sites, or ICE or error when the build failed)
#   part=time: input "BENCH VARIANT REP WALL RSS CPU" (overhead.sh's runs)
#   part=insns: input "BENCH VARIANT INSTRUCTIONS"
# time and insns take the variants (plain, gcov, pap-epp first) in
# variants; their last rows are the geometric mean of each build's
# slowdown, given as an overhead, and that overhead's ratio to pap-epp's
# and to gcov's, with the target (at most 1/4 of pap-epp's, 1/2 of
# gcov's) met or missed.

function pct(x) { return sprintf("%+.0f%%", 100 * x) }

function cell(s, f) {
	if (s == "")
		return "-"
	if (s !~ /^[0-9]+$/)
		return s
	return f > 0 ? sprintf("%d (%.0f%%)", s, 100 * s / f) : s
}

part == "probes" || part == "totals" {
	if (!($1 in seen)) { seen[$1] = 1; order[++nb] = $1 }
	nf[$1] = $4; all[$1] = $5; full[$1, $2] = $6; sel[$1, $2, $3] = $7
	if ($7 ~ /^[0-9]+$/) {
		tf[$2, $3] += $6; ts[$2, $3] += $7
	} else
		bad[$2, $3]++
	next
}

part == "time" {
	if (!($1 in seen)) { seen[$1] = 1; order[++nb] = $1 }
	t[$1, $2] = t[$1, $2] " " $6
	next
}

part == "insns" {
	if (!($1 in seen)) { seen[$1] = 1; order[++nb] = $1 }
	t[$1, $2] = $3
	next
}

function ratios(x,    i, v, b, n, s, g, head, sep, line, ov) {
	head = "| benchmark | " (part == "time" ? "plain s" : "plain Minsns")
	sep = "|---|---:"
	for (i = 2; i <= nv; i++) {
		head = head " | " var[i]; sep = sep "|---:"
	}
	print head " |"
	print sep "|"
	for (n = 1; n <= nb; n++) {
		b = order[n]
		if (x[b, "plain"] == "")
			continue
		if (part == "time")
			line = "| " b " | " sprintf("%.3f", x[b, "plain"])
		else
			line = "| " b " | " sprintf("%.1f", x[b, "plain"] / 1e6)
		for (i = 2; i <= nv; i++) {
			v = var[i]
			if (x[b, v] == "") {
				line = line " | failed"
				continue
			}
			if (part == "time")
				line = line " | " pct(x[b, v] / x[b, "plain"] - 1)
			else
				line = line " | " sprintf("%.2f", x[b, v] / x[b, "plain"])
			lg[v] += log(x[b, v] / x[b, "plain"]); cnt[v]++
		}
		print line " |"
	}
	line = "| **geometric mean** | "
	for (i = 2; i <= nv; i++) {
		v = var[i]
		g[v] = cnt[v] ? exp(lg[v] / cnt[v]) : 0
		if (!cnt[v])
			line = line " | failed"
		else if (part == "time")
			line = line " | **" pct(g[v] - 1) "**"
		else
			line = line " | **" sprintf("%.2f", g[v]) "**"
	}
	print line " |"
	for (s = 1; s <= 2; s++) {
		ref = s == 1 ? "pap-epp" : "gcov"
		line = "| overhead / " ref "'s | "
		for (i = 2; i <= nv; i++) {
			v = var[i]
			ov = g[ref] - 1
			line = line " | " (ov > 0 && cnt[v] ? sprintf("%.2f", (g[v] - 1) / ov) : "-")
		}
		print line " |"
	}
	line = "| target (<= 1/4 pap-epp, <= 1/2 gcov) | "
	for (i = 2; i <= nv; i++) {
		v = var[i]
		if (v == "gcov" || v == "pap-epp" || !cnt[v]) {
			line = line " | "
			continue
		}
		met = (g[v] - 1 <= (g["pap-epp"] - 1) / 4) &&
		      (g[v] - 1 <= (g["gcov"] - 1) / 2)
		line = line " | " (met ? "met" : "missed")
	}
	print line " |"
	if (part == "time")
		for (n = 1; n <= nb; n++)
			if (nc[order[n]] < nv)
				print "\n" order[n] ": " nv - nc[order[n]] " build(s) missing"
}

END {
	if (part == "probes") {
		print "| benchmark | functions run | pap-epp all | pap-epp spec fns | s1 psp0 | s1 psp1 | s1 psp2 | s1 psp3 | s1 follow | s5 psp0 | s5 psp1 | s5 psp2 | s5 psp3 | s5 follow |"
		print "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
		np = split("0 1 2 3 f", ps, " ")
		for (n = 1; n <= nb; n++) {
			b = order[n]
			line = "| " b " | " nf[b] " | " all[b] " | " full[b, 1]
			for (k = 1; k <= 5; k += 4)
				for (i = 1; i <= np; i++)
					line = line " | " cell(sel[b, k, ps[i]], full[b, k])
			print line " |"
		}
	} else if (part == "totals") {
		print "| paths per function | psp0 | psp1 | psp2 | psp3 | follow |"
		print "|---:|---:|---:|---:|---:|---:|"
		np = split("0 1 2 3 f", ps, " ")
		for (k = 1; k <= 5; k++) {
			line = "| " k
			for (i = 1; i <= np; i++) {
				p = ps[i]
				line = line " | " cell(ts[k, p], tf[k, p]) " of " tf[k, p]
				if (bad[k, p])
					line = line " (" bad[k, p] " failed)"
			}
			print line " |"
		}
	} else {
		nv = split(variants, var, " ")
		for (n = 1; n <= nb; n++)
			for (i = 1; i <= nv; i++)
				if ((order[n], var[i]) in t) {
					nc[order[n]]++
					if (part == "time")
						x[order[n], var[i]] = median(t[order[n], var[i]])
					else
						x[order[n], var[i]] = t[order[n], var[i]]
				}
		ratios(x)
	}
}
