# A minimal bot in Tcl (`tclsh bot.tcl`): the handshake, then the first legal action of every turn.
# Used by tests/test_langs.py.
fconfigure stdout -buffering line
while {[gets stdin line] >= 0} {
    if {[string match "arena *" $line]} {
        puts "bot 1 tcl"
    } elseif {[string match "turn *" $line]} {
        foreach token [split $line " "] {
            if {[string match "legal=*" $token]} {
                set first [lindex [split [string range $token 6 end] ","] 0]
                puts [string map {: " "} $first]
            }
        }
    } elseif {$line eq "quit"} {
        exit 0
    }
}
