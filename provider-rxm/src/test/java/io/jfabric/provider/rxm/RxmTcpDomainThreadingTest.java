package io.jfabric.provider.rxm;

import io.jfabric.Threading;
import io.jfabric.util.NoLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.locks.ReentrantLock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * Every case of {@link RxmTcpTest} again with both endpoints' domains at FI_THREAD_DOMAIN, where rxm takes no lock
 * (the application serialises every call into the domain, and these tests make all their calls from one thread).
 */
@Timeout(60)
class RxmTcpDomainThreadingTest extends RxmTcpTest {
    @Override
    protected Threading threading() {
        return Threading.DOMAIN;
    }

    @Test
    void atFiThreadDomainTheDomainTakesNoLockAndAtFiThreadSafeItDoes() {
        assertEquals(Threading.DOMAIN, a.info.domainAttr.threading);
        RxmDomain d = (RxmDomain) a.domain;
        assertSame(NoLock.INSTANCE, d.lock);
        assertNull(d.guard);
        try (RxmNode safe = new RxmNode()) {
            RxmDomain s = (RxmDomain) safe.domain;
            assertInstanceOf(ReentrantLock.class, s.lock);
            assertSame(s.lock, s.guard, "the CQ reads under the domain's own lock, none of its own");
        }
    }
}
