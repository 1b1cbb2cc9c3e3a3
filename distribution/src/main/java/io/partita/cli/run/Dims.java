package io.partita.cli.run;

import java.util.Map;

/** The {@code --dim NAME=VALUE} values of run, partitions and convert, checked before any file is read. */
final class Dims {
    private Dims() {
    }

    static void check(Map<String, Long> dims) {
        if (dims == null) {
            return;
        }
        for (Map.Entry<String, Long> e : dims.entrySet()) {
            if (e.getKey().isBlank()) {
                throw new BadInputException("--dim =" + e.getValue() + ": the dim has no name; expected NAME=VALUE");
            }
            if (e.getValue() < 1) {
                throw new BadInputException("--dim " + e.getKey() + "=" + e.getValue()
                        + ": expected a positive size (a symbolic dim is a batch size, sequence length, ...)");
            }
        }
    }
}
