package io.partita.testkit.benchdnn;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads case lines: either benchdnn batch lines ({@code --reset --in-shapes=... --case=F}) or the
 * corpus's {@code harness-cases.tsv} (harness name, tab, batch line). Knobs persist across the
 * lines of one harness until {@code --reset}, as in benchdnn.
 */
public final class HarnessFile {
    /** The graph-driver knobs this runner applies. */
    public static final Set<String> KNOWN_OPTIONS = Set.of("reset", "case", "in-shapes", "op-attrs", "dt", "op-kind",
            "tensor-property", "attr-fpmath", "mb", "expected-n-partitions");

    private HarnessFile() {
    }

    public static List<CaseLine> read(Path file) {
        try {
            return parse(Files.readAllLines(file), file.getFileName().toString());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    /** Parses lines; blank lines and {@code #} comments are skipped. */
    public static List<CaseLine> parse(List<String> lines, String defaultHarness) {
        Map<String, Map<String, String>> knobs = new HashMap<>();
        List<CaseLine> cases = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String raw = lines.get(i).strip();
            if (raw.isEmpty() || raw.startsWith("#")) {
                continue;
            }
            String harness = defaultHarness;
            String text = raw;
            int tab = raw.indexOf('\t');
            if (tab >= 0) {
                harness = raw.substring(0, tab).strip();
                text = raw.substring(tab + 1).strip();
            }
            Map<String, String> current = knobs.computeIfAbsent(harness, h -> new LinkedHashMap<>());
            for (String token : text.split("\\s+")) {
                if (token.isEmpty()) {
                    continue;
                }
                if (!token.startsWith("--")) {
                    throw new CaseRewriteException(harness + ":" + (i + 1) + ": expected --option=value, got '" + token + "'");
                }
                int eq = token.indexOf('=');
                String name = eq < 0 ? token.substring(2) : token.substring(2, eq);
                String value = eq < 0 ? "" : token.substring(eq + 1);
                if (name.equals("reset")) {
                    current.clear();
                    continue;
                }
                if (name.equals("case")) {
                    cases.add(new CaseLine(harness, i + 1, text, current, value));
                    continue;
                }
                current.put(name, value);
            }
        }
        return cases;
    }
}
