package io.jfabric.util;

import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.spi.ProviderParameter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

@Timeout(30)
class ProviderParamsTest {
    private static final String PROV = "utiltest";

    @AfterEach
    void clear() {
        for (String n : List.of("count", "limit", "buf", "flag", "name")) {
            System.clearProperty("jfabric." + PROV + "." + n);
        }
    }

    @Test
    void declaredParametersAreListedWithTypesDefaultsAndHelp() {
        ProviderParams p = new ProviderParams(PROV);
        p.integer("count", 4, "How many");
        p.size("buf", 65536, "Buffer size");
        p.bool("flag", true, "A switch");
        p.string("name", "x", "A name");
        List<ProviderParameter> l = p.parameters();
        assertEquals(4, l.size());
        assertEquals("count", l.get(0).name());
        assertEquals("int", l.get(0).type());
        assertEquals("4", l.get(0).defaultValue());
        assertEquals("size_t", l.get(1).type());
        assertEquals("FI_UTILTEST_BUF", l.get(1).envName());
        assertEquals("bool", l.get(2).type());
        assertEquals("A name", l.get(3).help());
        assertThrows(IllegalArgumentException.class, () -> p.integer("count", 1, "again"));
        assertThrows(IllegalArgumentException.class, () -> p.integer("Bad-Name", 1, "x"));
    }

    @Test
    void defaultsAndPropertiesAreParsed() {
        ProviderParams p = new ProviderParams(PROV);
        var count = p.integer("count", 4, "How many");
        var limit = p.longParam("limit", -5, "Limit");
        var buf = p.size("buf", 65536, "Buffer size");
        var flag = p.bool("flag", true, "A switch");
        var name = p.string("name", "x", "A name");
        assertEquals(4, count.get());
        assertEquals(-5, limit.get());
        assertEquals(65536, buf.get());
        assertTrue(flag.get());
        assertEquals("x", name.get());
        assertFalse(count.isSet());

        System.setProperty("jfabric.utiltest.count", " 17 ");
        System.setProperty("jfabric.utiltest.limit", "0x10");
        System.setProperty("jfabric.utiltest.buf", "16k");
        System.setProperty("jfabric.utiltest.flag", "off");
        System.setProperty("jfabric.utiltest.name", "hello");
        assertEquals(17, count.get());
        assertTrue(count.isSet());
        assertEquals(16, limit.get());
        assertEquals(16384, buf.get());
        assertFalse(flag.get());
        assertEquals("hello", name.get());
        System.setProperty("jfabric.utiltest.buf", "2M");
        assertEquals(2 << 20, buf.get());
        System.setProperty("jfabric.utiltest.flag", "YES");
        assertTrue(flag.get());
    }

    @Test
    void unparsableValuesFailClearly() {
        ProviderParams p = new ProviderParams(PROV);
        var count = p.integer("count", 4, "How many");
        var buf = p.size("buf", 10, "Buffer size");
        var flag = p.bool("flag", true, "A switch");
        System.setProperty("jfabric.utiltest.count", "many");
        FabricException e = assertThrows(FabricException.class, count::get);
        assertEquals(Errno.EINVAL, e.errno());
        assertTrue(e.getMessage().contains("-Djfabric.utiltest.count='many'"), e.getMessage());
        assertTrue(e.getMessage().contains("default 4"), e.getMessage());
        System.setProperty("jfabric.utiltest.count", "3000000000");
        assertThrows(FabricException.class, count::get, "out of int range");
        System.setProperty("jfabric.utiltest.buf", "-1");
        assertThrows(FabricException.class, buf::get, "size_t is not negative");
        System.setProperty("jfabric.utiltest.flag", "maybe");
        assertTrue(assertThrows(FabricException.class, flag::get).getMessage().contains("bool"));
    }

    @Test
    void logLevelsParse() {
        assertEquals(System.Logger.Level.WARNING, FabricLog.parseLevel(null));
        assertEquals(System.Logger.Level.WARNING, FabricLog.parseLevel("warn"));
        assertEquals(System.Logger.Level.INFO, FabricLog.parseLevel("Info"));
        assertEquals(System.Logger.Level.DEBUG, FabricLog.parseLevel("debug"));
        assertEquals(System.Logger.Level.TRACE, FabricLog.parseLevel("trace"));
        System.setProperty("jfabric.log.level", "debug");
        try {
            System.Logger dbg = FabricLog.logger("utiltest-debug");
            assertTrue(dbg.isLoggable(System.Logger.Level.DEBUG), "FI_LOG_LEVEL=debug reaches the backend");
            assertFalse(dbg.isLoggable(System.Logger.Level.TRACE));
        } finally {
            System.clearProperty("jfabric.log.level");
        }
        System.Logger log = FabricLog.logger("utiltest");
        if (System.getenv("FI_LOG_LEVEL") == null) {
            assertFalse(log.isLoggable(System.Logger.Level.INFO), "default level is warn");
        }
        assertTrue(log.isLoggable(System.Logger.Level.WARNING));
        assertEquals("jfabric.utiltest", log.getName());
        assertFalse(new FabricLog.LevelFilter(log, System.Logger.Level.WARNING).isLoggable(System.Logger.Level.DEBUG));
        assertTrue(new FabricLog.LevelFilter(System.getLogger("jfabric.x"), System.Logger.Level.WARNING)
                .isLoggable(System.Logger.Level.ERROR));
    }
}
