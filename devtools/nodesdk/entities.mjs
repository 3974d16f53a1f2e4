// entities.mjs: Microsoft's Node SDK (@azure/data-tables) as another client
// of a table, for tests that check what tablekit reads of its writes and
// what it reads of tablekit's. Run by devtools/testenv (NodeSDK):
//
//   node entities.mjs put  CONNECTION_STRING TABLE < entities.jsonl
//   node entities.mjs list CONNECTION_STRING TABLE > entities.jsonl
//
// put creates each entity of its input, one JSON object a line in the SDK's
// own form ({"partitionKey":"p","rowKey":"r","D":{"value":"NaN","type":"Double"}}).
// list prints every entity of the table the same way, as the SDK reads it
// with type conversion off, so each value comes with its EDM type.
import { TableClient } from "@azure/data-tables";
import { createInterface } from "node:readline";

const [mode, connectionString, tableName] = process.argv.slice(2);
if (!["put", "list"].includes(mode) || !connectionString || !tableName) {
  console.error("usage: node entities.mjs put|list CONNECTION_STRING TABLE");
  process.exit(2);
}
const client = TableClient.fromConnectionString(connectionString, tableName, {
  allowInsecureConnection: true, // the emulator on 127.0.0.1 speaks http
});

if (mode === "put") {
  for await (const line of createInterface({ input: process.stdin })) {
    if (line.trim() !== "") {
      await client.createEntity(JSON.parse(line));
    }
  }
} else {
  const entities = client.listEntities({ disableTypeConversion: true });
  for await (const e of entities) {
    delete e.etag;
    delete e.timestamp;
    process.stdout.write(JSON.stringify(e) + "\n");
  }
}
