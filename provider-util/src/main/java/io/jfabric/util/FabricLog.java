package io.jfabric.util;

import java.util.Locale;

/**
 * Logging for providers, libfabric's {@code FI_LOG_LEVEL} + {@code FI_WARN/FI_INFO/FI_DBG}: a
 * {@link System.Logger} named {@code jfabric.<provider>} that passes messages at or above the level
 * FI_LOG_LEVEL (or {@code -Djfabric.log.level}) sets: warn (default), info, debug, trace; "none"
 * silences it. Guard expensive messages with {@code if (log.isLoggable(Level.DEBUG))}; the checks
 * are a field read, so data-path code may keep them.
 */
public final class FabricLog {
    private FabricLog() {
    }

    /** The logger for {@code provider} ("tcp", "shm", "ofi_rxm"). */
    public static System.Logger logger(String provider) {
        System.Logger.Level level = configuredLevel();
        String name = "jfabric." + provider;
        if (level.getSeverity() < System.Logger.Level.INFO.getSeverity()) {
            enableFineLogging(name, level);
        }
        return new LevelFilter(System.getLogger(name), level);
    }

    /** Strong references: java.util.logging holds its loggers weakly and would drop our level. */
    private static final java.util.Map<String, java.util.logging.Logger> CONFIGURED =
            new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * The default backend (java.util.logging) prints INFO and up only; for debug/trace give the
     * provider's logger its own console handler at that level, unless the application configured it.
     */
    private static void enableFineLogging(String name, System.Logger.Level level) {
        CONFIGURED.computeIfAbsent(name, n -> {
            java.util.logging.Logger jul = java.util.logging.Logger.getLogger(n);
            java.util.logging.Level julLevel = level == System.Logger.Level.TRACE
                    ? java.util.logging.Level.FINER : java.util.logging.Level.FINE;
            if (jul.getLevel() == null && jul.getHandlers().length == 0) {
                jul.setLevel(julLevel);
                java.util.logging.ConsoleHandler h = new java.util.logging.ConsoleHandler();
                h.setLevel(julLevel);
                jul.addHandler(h);
                jul.setUseParentHandlers(false);
            }
            return jul;
        });
    }

    /** The level FI_LOG_LEVEL / jfabric.log.level selects; WARNING when unset or unknown. */
    public static System.Logger.Level configuredLevel() {
        String v = System.getProperty("jfabric.log.level");
        if (v == null) {
            v = System.getenv("FI_LOG_LEVEL");
        }
        return parseLevel(v);
    }

    static System.Logger.Level parseLevel(String v) {
        if (v == null) {
            return System.Logger.Level.WARNING;
        }
        return switch (v.trim().toLowerCase(Locale.ROOT)) {
            case "trace" -> System.Logger.Level.TRACE;
            case "debug" -> System.Logger.Level.DEBUG;
            case "info" -> System.Logger.Level.INFO;
            case "none", "off" -> System.Logger.Level.OFF;
            default -> System.Logger.Level.WARNING;
        };
    }

    /** Drops messages below the configured level before they reach the platform logger. */
    static final class LevelFilter implements System.Logger {
        private final System.Logger delegate;
        private final Level threshold;

        LevelFilter(System.Logger delegate, Level threshold) {
            this.delegate = delegate;
            this.threshold = threshold;
        }

        @Override
        public String getName() {
            return delegate.getName();
        }

        Level threshold() {
            return threshold;
        }

        @Override
        public boolean isLoggable(Level level) {
            return threshold != Level.OFF && level != Level.OFF && level.getSeverity() >= threshold.getSeverity()
                    && delegate.isLoggable(level);
        }

        @Override
        public void log(Level level, java.util.ResourceBundle bundle, String msg, Throwable thrown) {
            if (isLoggable(level)) {
                delegate.log(level, bundle, msg, thrown);
            }
        }

        @Override
        public void log(Level level, java.util.ResourceBundle bundle, String format, Object... params) {
            if (isLoggable(level)) {
                delegate.log(level, bundle, format, params);
            }
        }
    }
}
