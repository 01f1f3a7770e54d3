// A minimal bot in Java (single-file source: `java Bot.java`, Java 11+; or javac Bot.java, then
// `java -cp DIR Bot`): the handshake, then the first legal action of every turn. Used by tests/test_langs.py.
import java.io.BufferedReader;
import java.io.InputStreamReader;

public class Bot {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.startsWith("arena ")) {
                say("bot 1 java");
            } else if (line.startsWith("turn ")) {
                for (String token : line.split(" ")) {
                    if (token.startsWith("legal=")) {
                        // "play:Th" -> "play Th"; "close" stays as it is
                        say(token.substring(6).split(",")[0].replace(':', ' '));
                    }
                }
            } else if (line.equals("quit")) {
                return;
            }
        }
    }

    private static void say(String line) {
        System.out.print(line + "\n");
        System.out.flush(); // stdout is buffered when it is a pipe: a reply left in the buffer is a timeout
    }
}
