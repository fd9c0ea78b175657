# calls.awk - bench/calls.sh's results as Markdown tables.
#
# Input lines: BENCH BUILD REP WALL MAXRSS_KB CPU.  Variables: builds (the
# column order, "plain" first), quick, reps, insfile (BENCH BUILD
# INSTRUCTIONS lines, may be empty).  Per benchmark and build the median
# CPU time; overhead = median / plain's - 1; "calls / cyg" = calls'
# overhead over -finstrument-functions' (taken as at least 1%); geometric
# means over benchmarks of the slowdowns.  With instruction counts, a
# second table of their ratios to plain.
function pct(x) { return sprintf("%+.0f%%", 100 * x) }
{ if (!($1 in seen)) { seen[$1] = 1; order[++nb] = $1 }
  cpu[$1, $2] = cpu[$1, $2] " " $6 }
END {
	nv = split(builds, v, " ")
	while ((getline line < insfile) > 0) {
		split(line, f, " ")
		ins[f[1], f[2]] = f[3]
	}
	printf "CPU time, median of %d interleaved runs%s; overhead against plain:\n\n", reps,
	       quick == "yes" ? " at 1/8 of the work (--quick)" : ""
	printf "| benchmark | plain s"
	for (k = 2; k <= nv; k++)
		printf " | %s", v[k]
	print " | calls / cyg |"
	printf "|---|---:"
	for (k = 2; k <= nv; k++)
		printf "|---:"
	print "|---:|"
	for (i = 1; i <= nb; i++) {
		b = order[i]
		base = median(cpu[b, "plain"])
		printf "| %s | %.3f", b, base
		for (k = 2; k <= nv; k++) {
			m = median(cpu[b, v[k]])
			s[b, v[k]] = base > 0 ? m / base : 1
			lg[v[k]] += log(s[b, v[k]])
			printf " | %s", pct(s[b, v[k]] - 1)
		}
		g = s[b, "cyg"] - 1
		printf " | %.2f |\n", (s[b, "calls"] - 1) / (g < 0.01 ? 0.01 : g)
	}
	printf "| **geometric mean** |"
	for (k = 2; k <= nv; k++) {
		gm[v[k]] = exp(lg[v[k]] / nb)
		printf " | **%s**", pct(gm[v[k]] - 1)
	}
	g = gm["cyg"] - 1
	printf " | **%.2f** |\n", (gm["calls"] - 1) / (g < 0.01 ? 0.01 : g)
	if (length(ins) == 0)
		exit
	printf "\nInstructions (valgrind, 1/400 of the work), as a ratio to plain:\n\n"
	printf "| benchmark | plain Minsns"
	for (k = 2; k <= nv; k++)
		printf " | %s", v[k]
	print " |"
	printf "|---|---:"
	for (k = 2; k <= nv; k++)
		printf "|---:"
	print "|"
	for (i = 1; i <= nb; i++) {
		b = order[i]
		printf "| %s | %.1f", b, ins[b, "plain"] / 1e6
		for (k = 2; k <= nv; k++)
			printf " | %.2f", ins[b, "plain"] ? ins[b, v[k]] / ins[b, "plain"] : 0
		print " |"
	}
}