/**
 * `npm run gen:structural`: writes src/schema/structural-data.ts from the
 * carried metaschemas (see scripts/lib/structural-metaschemas.ts). A test
 * holds the file to what this writes.
 */
import { writeFileSync } from "node:fs";
import { structuralDataSource } from "./lib/structural-metaschemas.js";

writeFileSync("src/schema/structural-data.ts", structuralDataSource());
console.log("wrote src/schema/structural-data.ts");
