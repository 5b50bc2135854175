package io.jfabric.provider.libfabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.jfabric.Access;
import io.jfabric.Caps;
import io.jfabric.CqEntry;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.MemoryRegion;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Closed objects never hand libfabric a freed pointer: data calls return errors, control calls throw. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class UseAfterCloseTest {

    @Test
    void closedObjectsAnswerWithErrorsInsteadOfCrashing() {
        EndpointPair p = new EndpointPair("libfabric:shm", Caps.MSG);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment buf = arena.allocate(64);
            MemoryRegion mr = p.domain.registerMemory(buf, Access.SEND | Access.RECV, 41);
            mr.close();
            assertEquals(-Errno.EINVAL, p.a.send(buf, mr, p.addrB, null), "a closed region is no descriptor");

            p.b.close();
            assertEquals(-Errno.EBADF, p.b.send(buf, null, p.addrA, null));
            assertEquals(-Errno.EBADF, p.b.recv(buf, null, p.addrA, null));
            assertEquals(-Errno.EBADF, p.b.tsend(buf, null, p.addrA, 1, null));
            assertEquals(-Errno.EBADF, p.b.write(buf, null, p.addrA, 0, 0, null));
            assertEquals(Errno.EBADF, assertThrows(FabricException.class, p.b::enable).errno());
            assertEquals(Errno.EBADF, assertThrows(FabricException.class, p.b::getName).errno());
            p.b.close(); // a second close is harmless

            p.cqB.close();
            assertEquals(-Errno.EBADF, p.cqB.read(new CqEntry()));
            assertEquals(-Errno.EBADF, p.cqB.read(CqEntry.array(4), 4));
        } finally {
            p.close();
        }
    }
}
