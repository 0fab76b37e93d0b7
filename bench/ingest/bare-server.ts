// The baseline of the collector: a bare node:http server that reads the body and answers 202.
import http from "node:http";

const port = Number(process.argv[2]);
http
  .createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(202, { "content-type": "application/json", "content-length": "2" });
      res.end("{}");
    });
  })
  .listen(port, "127.0.0.1", () => console.log(`bare: listening on ${port}`));
