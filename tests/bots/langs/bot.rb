# A minimal bot in Ruby (`ruby bot.rb`): the handshake, then the first legal action of every turn.
# Used by tests/test_langs.py.
$stdout.sync = true  # flush stdout after every line
$stdin.each_line do |line|
  line = line.chomp
  if line.start_with?("arena ")
    puts "bot 1 ruby"
  elsif line.start_with?("turn ") && (legal = line[/ legal=(\S+)/, 1])
    puts legal.split(",").first.tr(":", " ")
  elsif line == "quit"
    exit 0
  end
end
