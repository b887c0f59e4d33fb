/**
 * The suite's commands that name no target mean the embedded appliance: STOR_REQUIRE_TARGET=0
 * says so, as an operator on a test bed would, so that they are not told on every change that it
 * went there (src/commands/framework/target.ts, implicitTargetCheck). test/commands/framework/implicit-target.e2e.test.ts
 * unsets it to test the note and the refusal.
 */
export const EMBEDDED_MEANT = { STOR_REQUIRE_TARGET: '0' } as const;
