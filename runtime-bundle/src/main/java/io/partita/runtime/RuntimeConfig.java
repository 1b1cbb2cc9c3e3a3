package io.partita.runtime;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/** Config Admin settings of PID {@code io.partita.runtime}; a removed or empty value restores the start value. */
@ObjectClassDefinition(name = "Partita runtime", description = "Settings of the GraphRuntime service.")
@interface RuntimeConfig {

    @AttributeDefinition(name = "Memory limit",
            description = "The most bytes of tensors compiled graphs and their inputs hold at once, and the reference"
                    + " backend holds as doubles per partition: bytes, or a number with k, m, g or t (binary multiples,"
                    + " as -Xmx), e.g. 8g. Removing it restores the start value (the partita.memory.limit property, or"
                    + " 80% of the largest heap pool). A later GraphRuntime.setMemoryLimit overrides it.")
    String memory_limit() default "";
}
