/** The testkit's deterministic generator (mulberry32), so that a fuzz failure reproduces from its seed. */
export { seededRandom as rng } from "../../src/testkit/fuzz.js";
