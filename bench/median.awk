# median.awk - the median of a space-separated list of numbers, for the
# benchmark scripts' tables: given to awk with -f before a script of its
# own, or as the start of an inline program ($bench_median, bench/lib.sh).
function median(list,    a, n, i, j, t) {
	n = split(list, a, " ")
	for (i = 2; i <= n; i++)	# insertion sort
		for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
