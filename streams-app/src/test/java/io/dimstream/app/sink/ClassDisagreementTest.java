package io.dimstream.app.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.app.change.ChangeClass;
import io.dimstream.db.write.ApplyResult;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ClassDisagreementTest {

    @Test
    void perClassTheAbsoluteDifferenceOfTheTwoCountsClassesThatAgreeLeftOut() {
        ApplyResult writer = ApplyResult.builder().received(9).newKeys(2).changed(3).deleted(1).late(1).duplicates(2).build();
        Map<ChangeClass, Integer> topology = Map.of(ChangeClass.NEW, 2, ChangeClass.CHANGED, 5, ChangeClass.DELETED, 1,
                ChangeClass.UNCHANGED, 1);

        assertThat(ClassDisagreement.between(topology, writer))
                .isEqualTo(Map.of(ChangeClass.CHANGED, 2, ChangeClass.UNCHANGED, 1, ChangeClass.LATE, 1));
        assertThat(ClassDisagreement.between(Map.of(ChangeClass.NEW, 2, ChangeClass.CHANGED, 3, ChangeClass.DELETED, 1,
                ChangeClass.LATE, 1), writer)).isEmpty();
    }
}
