# Hashes, sorting, regular expressions, sprintf and pack.
use strict;
use warnings;
my %count;
while (my $line = <STDIN>) {
    chomp $line;
    $count{length $line}++;
    $count{even}++ if $line =~ /^\d*[02468]$/;
}
print join(" ", map { "$_=$count{$_}" } sort keys %count), "\n";
my @words = sort { length($a) <=> length($b) or $a cmp $b } qw(translation register block cache flag link);
print "@words\n";
printf "%.10f %x %o %e\n", atan2(1, 1) * 4, 48879, 511, 6.02214076e23;
print unpack("H*", pack("N n C", 3735928559, 4660, 255)), "\n";
