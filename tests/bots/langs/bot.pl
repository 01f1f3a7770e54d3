# A minimal bot in Perl (`perl bot.pl`): the handshake, then the first legal action of every turn.
# Used by tests/test_langs.py.
use strict;
use warnings;

$| = 1;  # flush stdout after every line
while (my $line = <STDIN>) {
    chomp $line;
    if ($line =~ /^arena /) {
        print "bot 1 perl\n";
    } elsif ($line =~ /^turn / && $line =~ / legal=([^ ]+)/) {
        my ($first) = split /,/, $1;
        $first =~ tr/:/ /;
        print "$first\n";
    } elsif ($line eq "quit") {
        exit 0;
    }
}
