package io.partita.cli.run;

import java.util.Locale;

import io.partita.graph.PartitionPolicy;
import picocli.CommandLine;

/** Parses {@code fusion} / {@code debug}. */
public final class PolicyConverter implements CommandLine.ITypeConverter<PartitionPolicy> {
    @Override
    public PartitionPolicy convert(String value) {
        try {
            return PartitionPolicy.valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException("'" + value + "' is not a policy; expected fusion or debug");
        }
    }
}
