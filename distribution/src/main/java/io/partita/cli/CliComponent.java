package io.partita.cli;

import java.util.function.ToIntFunction;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import io.partita.cache.CacheManager;
import io.partita.graph.GraphRuntime;

/**
 * The command runner the launcher calls: a {@code ToIntFunction<String[]>} (a type both class
 * loaders share) that parses the arguments and returns the exit code.
 */
@Component(service = ToIntFunction.class, property = "partita.cli=true")
public class CliComponent implements ToIntFunction<String[]> {

    @Reference
    private GraphRuntime runtime;

    @Reference
    private CacheManager caches;

    @Override
    public int applyAsInt(String[] args) {
        return PartitaCommand.execute(runtime, caches, System.out, System.err, args);
    }
}
