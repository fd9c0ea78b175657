# summarize.awk - bench/overhead.sh's results as a Markdown table.
#
# Input lines: BENCH VARIANT REP WALL MAXRSS_KB CPU [T], T marking a run
# stopped at the time limit (then WALL = CPU = the limit).  Variables: variants
# (the column order, "plain" first), quick, reps, plotdata (file for
# gnuplot: one line per benchmark, slowdown of each variant), insfile
# (BENCH VARIANT INSTRUCTIONS lines, may be empty).
#
# Per benchmark and variant: the median CPU time and the median peak RSS;
# a build with a stopped run shows the limit as a lower bound (">"), and
# so do the geometric means it enters.
# Overhead = median / plain median - 1.  "/gcov" = overhead / gcov's
# overhead, gcov's taken as at least 1% so that noise around zero does
# not blow the ratio up.  Geometric mean over benchmarks of the slowdown
# (median / plain median); its overhead and ratio follow from it.

function pct(x) {
	return sprintf("%+.0f%%", 100 * x)
}

# a cell of the /gcov columns: "-" when the build's run was stopped
function vs_gcov(b, v, g) {
	if (med[b, v] == 0)
		return "-"
	return sprintf("%s%.2f", capped[b, v] ? ">" : "", ratio(slow[b, v] - 1, g))
}

function ratio(o, g) {
	if (g < 0.01)
		g = 0.01
	return o / g
}

{
	if (!($1 in seen)) {
		seen[$1] = 1
		order[++nb] = $1
	}
	vals[$1 SUBSEP $2] = vals[$1 SUBSEP $2] " " $6
	if ($7 == "T")
		capped[$1, $2] = 1
	else
		rss[$1 SUBSEP $2] = rss[$1 SUBSEP $2] " " $5
}

END {
	nv = split(variants, var, " ")
	ntimed = nb
	if (insfile != "")
		while ((getline line < insfile) > 0) {
			split(line, f, " ")
			ins[f[1] SUBSEP f[2]] = f[3]
			if (!(f[1] in seen)) {
				seen[f[1]] = 1
				order[++nb] = f[1]
			}
		}
	if (ntimed == 0)
		print_insns()
	else
		print_times()
}

function print_times(    k, i, b, v, base, g, r, gg) {
	have_c = 0
	for (k = 1; k <= nv; k++)
		if (var[k] ~ /\+c$/)
			have_c = 1

	printf "%s", "| benchmark | plain s"
	for (k = 2; k <= nv; k++)
		printf " | %s", var[k]
	printf " | epp/gcov | pap/gcov | pap-epp/gcov"
	if (have_c)
		printf " | pap-epp+c/pap-epp"
	print " | RSS plain MB | RSS pap-epp MB |"
	printf "|---|---:"
	for (k = 2; k <= nv; k++)
		printf "|---:"
	printf "|---:|---:|---:"
	if (have_c)
		printf "|---:"
	print "|---:|---:|"

	printf "" > plotdata
	for (i = 1; i <= nb; i++) {
		b = order[i]
		for (k = 1; k <= nv; k++) {
			v = var[k]
			med[b, v] = median(vals[b SUBSEP v])
			mrss[b, v] = median(rss[b SUBSEP v])
		}
		base = med[b, "plain"]
		printf "| %s | %.3f", b, base
		printf "%s", b > plotdata
		for (k = 2; k <= nv; k++) {
			v = var[k]
			slow[b, v] = med[b, v] / base
			if (med[b, v] == 0) {
				# stopped, and no CPU time known: left out
				printf " | stopped"
				printf " 0" > plotdata
				left[v]++
				continue
			}
			printf " | %s%s", capped[b, v] ? ">" : "", pct(slow[b, v] - 1)
			if (capped[b, v])
				gcapped[v] = 1
			printf " %.4f", slow[b, v] > plotdata
			lg[v] += log(slow[b, v])
			ng[v]++
		}
		print "" > plotdata
		g = slow[b, "gcov"] - 1
		for (k = 2; k <= nv; k++) {
			v = var[k]
			if (med[b, v] == 0)
				continue
			r = ratio(slow[b, v] - 1, g)
			if (!(v in worst) || r > worst[v]) {
				worst[v] = r
				worst_at[v] = b
			}
		}
		printf " | %s | %s | %s", vs_gcov(b, "epp", g), vs_gcov(b, "pap", g),
		       vs_gcov(b, "pap-epp", g)
		if (have_c)
			printf " | %.2f", ratio(slow[b, "pap-epp+c"] - 1, slow[b, "pap-epp"] - 1)
		printf " | %.1f | %s |\n", mrss[b, "plain"] / 1024,
		       rss[b SUBSEP "pap-epp"] == "" ? "-" : sprintf("%.1f", mrss[b, "pap-epp"] / 1024)
	}
	printf "| **geometric mean** |"
	for (k = 2; k <= nv; k++) {
		v = var[k]
		geo[v] = exp(lg[v] / ng[v])
		printf " | **%s%s**%s", gcapped[v] ? ">" : "", pct(geo[v] - 1),
		       left[v] ? " (" ng[v] " of " nb ")" : ""
	}
	gg = geo["gcov"] - 1
	printf " | **%s%.2f** | **%s%.2f** | **%s%.2f**",
	       gcapped["epp"] ? ">" : "", ratio(geo["epp"] - 1, gg),
	       gcapped["pap"] ? ">" : "", ratio(geo["pap"] - 1, gg),
	       gcapped["pap-epp"] ? ">" : "", ratio(geo["pap-epp"] - 1, gg)
	if (have_c)
		printf " | **%.2f**", ratio(geo["pap-epp+c"] - 1, geo["pap-epp"] - 1)
	print " | | |"
	printf "| worst /gcov |"
	for (k = 2; k <= nv; k++) {
		v = var[k]
		printf " | %.2f (%s)", worst[v], worst_at[v]
	}
	printf " | | | | |"
	if (have_c)
		printf " |"
	print " |"
	print ""
	printf "Medians of %d interleaved runs per build%s.  Overhead: median CPU time /\n", \
	       reps, quick == "yes" ? " (QUICK MODE: 1/8 of the work; not for comparison)" : ""
	print "plain median - 1; \">\": a run hit the time limit, so the figure is a"
	print "lower bound; \"stopped\": so did every run, its time is not known and it"
	print "is left out of the means (\"(N of M)\": the benchmarks they cover).  /gcov: overhead / gcov's overhead (gcov's taken as at"
	print "least 1%).  The last rows: geometric mean of the slowdowns, and each"
	print "build's worst ratio to gcov's overhead with the benchmark it occurs on."
	if (length(ins) > 0) {
		print ""
		print_insns()
	}
}

function print_insns(    k, i, b, p, x, ni, li) {
	print "Instructions executed (valgrind, 1/400 of the work), as a ratio to plain:"
	print ""
	printf "| benchmark | plain"
	for (k = 2; k <= nv; k++)
		if (var[k] !~ /\+c$/)
			printf " | %s", var[k]
	print " | pap-epp/gcov |"
	printf "|---|---:"
	for (k = 2; k <= nv; k++)
		if (var[k] !~ /\+c$/)
			printf "|---:"
	print "|---:|"
	for (i = 1; i <= nb; i++) {
		b = order[i]
		p = ins[b, "plain"]
		if (p == "" || p == 0)
			continue
		printf "| %s | %.3g", b, p
		for (k = 2; k <= nv; k++)
			if (var[k] !~ /\+c$/) {
				x = ins[b, var[k]] / p
				li[var[k]] += log(x)
				printf " | %.2f", x
			}
		printf " | %.2f |\n", ratio(ins[b, "pap-epp"] / p - 1,
					   ins[b, "gcov"] / p - 1)
		ni++
	}
	printf "| **geometric mean** |"
	for (k = 2; k <= nv; k++)
		if (var[k] !~ /\+c$/)
			printf " | **%.2f**", exp(li[var[k]] / ni)
	printf " | **%.2f** |\n", ratio(exp(li["pap-epp"] / ni) - 1,
				       exp(li["gcov"] / ni) - 1)
}
