# overhead.gp - bench/overhead.sh's plot: each build's slowdown against
# the plain -O2 build, per benchmark, on a log scale.
# Called with -e "datafile='...'; outfile='...'".  Data columns:
# benchmark, then gcov, epp, pap, pap-epp[, epp+c, pap+c, pap-epp+c].
set terminal pngcairo size 1400,650 font "sans,10" noenhanced
set output outfile
set title "CPU time against plain gcc -O2 (median; lower is better; no bar: every run stopped at the time limit)"
set ylabel "slowdown (x plain)"
set logscale y 2
set yrange [0.8:*]
set grid ytics
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set xtics rotate by -35 scale 0
set key top left
ncols = words(system("head -n 1 " . datafile)) - 1
names = "gcov epp pap pap-epp epp+collector pap+collector pap-epp+collector"
plot for [i=2:ncols+1] datafile using i:xtic(1) title word(names, i-1)
