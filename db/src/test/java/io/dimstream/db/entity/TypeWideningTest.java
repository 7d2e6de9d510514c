package io.dimstream.db.entity;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.entity.TypeWidening.ColumnDef;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Which widening a value asks for, and which type changes are safe. */
class TypeWideningTest {

    private static final ColumnDef SMALLINT = ColumnDef.of(ColumnType.SMALLINT);
    private static final ColumnDef INTEGER = ColumnDef.of(ColumnType.INTEGER);
    private static final ColumnDef BIGINT = ColumnDef.of(ColumnType.BIGINT);
    private static final ColumnDef NUMERIC = ColumnDef.of(ColumnType.NUMERIC);
    private static final ColumnDef TEXT = ColumnDef.of(ColumnType.TEXT);

    private static ColumnDef varchar(int n) {
        return ColumnDef.of(new TypeModifier.Length(n));
    }

    private static ColumnDef numeric(int p, int s) {
        return ColumnDef.of(new TypeModifier.Precision(p, s));
    }

    @Test
    void aWholeNumberBeyondTheColumnTakesTheNextIntegerTypeThatHoldsIt() {
        assertThat(TypeWidening.forValue(INTEGER, 3_000_000_000L)).contains(BIGINT);
        assertThat(TypeWidening.forValue(SMALLINT, 40_000)).contains(INTEGER);
        assertThat(TypeWidening.forValue(SMALLINT, 3_000_000_000L)).contains(BIGINT);
        assertThat(TypeWidening.forValue(BIGINT, new BigInteger("99999999999999999999"))).contains(NUMERIC);
        assertThat(TypeWidening.forValue(INTEGER, "3000000000")).contains(BIGINT);
    }

    @Test
    void aValueTheColumnTakesOrNoWideningTakesAsksForNone() {
        assertThat(TypeWidening.forValue(INTEGER, 7)).isEmpty();
        assertThat(TypeWidening.forValue(INTEGER, null)).isEmpty();
        assertThat(TypeWidening.forValue(INTEGER, new BigDecimal("3.5"))).isEmpty(); // a fraction is no widening of an integer
        assertThat(TypeWidening.forValue(INTEGER, "seven")).isEmpty();
        assertThat(TypeWidening.forValue(TEXT, "anything")).isEmpty();
        assertThat(TypeWidening.forValue(ColumnDef.of(ColumnType.BOOLEAN), "yes")).isEmpty();
        assertThat(TypeWidening.forValue(varchar(5), "a\u0000b")).isEmpty(); // refused as text too
        assertThat(TypeWidening.forValue(varchar(5), "abcde")).isEmpty();
    }

    @Test
    void aLongerTextDoublesTheLengthAtLeast() {
        assertThat(TypeWidening.forValue(varchar(5), "abcdef")).contains(varchar(10));
        assertThat(TypeWidening.forValue(varchar(5), "x".repeat(23))).contains(varchar(23));
        assertThat(TypeWidening.forValue(varchar(TypeModifier.Length.MAX - 1), "x".repeat(TypeModifier.Length.MAX)))
                .contains(varchar(TypeModifier.Length.MAX));
    }

    @Test
    void moreDigitsBeforeThePointKeepTheScale() {
        assertThat(TypeWidening.forValue(numeric(5, 2), new BigDecimal("12345.678"))).contains(numeric(7, 2));
        assertThat(TypeWidening.forValue(numeric(5, 2), "-99999.5")).contains(numeric(7, 2));
        assertThat(TypeWidening.forValue(numeric(5, 2), "999.999")).contains(numeric(6, 2)); // rounds to 1000.00
        assertThat(TypeWidening.forValue(numeric(5, 2), new BigDecimal("123.456"))).isEmpty(); // rounded, as PostgreSQL does
        assertThat(TypeWidening.forValue(numeric(999, 0), new BigDecimal("1e1000"))).contains(NUMERIC);
    }

    @Test
    void safeChangesKeepEveryValueAndItsText() {
        assertThat(TypeWidening.isSafe(INTEGER, BIGINT)).isTrue();
        assertThat(TypeWidening.isSafe(SMALLINT, NUMERIC)).isTrue();
        assertThat(TypeWidening.isSafe(BIGINT, BIGINT)).isTrue();
        assertThat(TypeWidening.isSafe(varchar(5), varchar(6))).isTrue();
        assertThat(TypeWidening.isSafe(varchar(5), TEXT)).isTrue();
        assertThat(TypeWidening.isSafe(numeric(5, 2), numeric(9, 2))).isTrue();
        assertThat(TypeWidening.isSafe(numeric(5, 2), NUMERIC)).isTrue();

        assertThat(TypeWidening.isSafe(BIGINT, INTEGER)).isFalse();
        assertThat(TypeWidening.isSafe(TEXT, INTEGER)).isFalse();
        assertThat(TypeWidening.isSafe(INTEGER, TEXT)).isFalse();
        assertThat(TypeWidening.isSafe(TEXT, varchar(5))).isFalse();
        assertThat(TypeWidening.isSafe(varchar(6), varchar(5))).isFalse();
        assertThat(TypeWidening.isSafe(numeric(5, 2), numeric(9, 3))).isFalse();
        assertThat(TypeWidening.isSafe(NUMERIC, numeric(9, 2))).isFalse();
        assertThat(TypeWidening.isSafe(INTEGER, numeric(20, 0))).isFalse();
        assertThat(TypeWidening.isSafe(ColumnDef.of(ColumnType.DATE), ColumnDef.of(ColumnType.TIMESTAMPTZ))).isFalse();
    }

    @Test
    void aTypeReadsBackAsItPrints() {
        for (ColumnDef d : new ColumnDef[] {INTEGER, TEXT, varchar(40), numeric(12, 2), ColumnDef.of(ColumnType.TIMESTAMPTZ),
                ColumnDef.of(ColumnType.DOUBLE)}) {
            assertThat(ColumnDef.parse(d.sql())).isEqualTo(d);
        }
        assertThat(ColumnDef.parse("varchar(40)")).isEqualTo(varchar(40));
        assertThat(Optional.of(ColumnDef.parse("bigint"))).contains(BIGINT);
    }
}
