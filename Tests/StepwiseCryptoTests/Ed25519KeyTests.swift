import StepwiseCrypto
import Testing

@Suite("Ed25519 keys")
struct Ed25519KeyTests {
    /// The shared test root key (`Fixtures/signing/keys.json`): seed = SHA-256 of its label.
    let rootSeedHex = "897bf7119aedbc14211e48396c6c3c5e211d9f1420c80ae77ecd380b3c787d4b"
    let rootBase64 = "Nz5XgYPm9wWMq6BzPJWhG3hbAqqz7xG2+HwWLMbcr0k="
    let rootHex = "373e578183e6f7058caba0733c95a11b785b02aab3ef11b6f87c162cc6dcaf49"

    @Test func fixtureSeedRuleGivesTheFixturePublicKey() throws {
        let seed = SHA256.digest(of: Array("stepwise-test-root-key-v1".utf8))
        #expect(Hex.encode(seed) == rootSeedHex)
        let key = try Ed25519PrivateKey(seed: seed)
        #expect(key.publicKey.base64 == rootBase64)
    }

    @Test func publicKeyParsesFromBase64HexAndSPKI() throws {
        let fromBase64 = try Ed25519PublicKey(parsing: rootBase64)
        let fromHex = try Ed25519PublicKey(parsing: rootHex)
        let fromUppercaseHex = try Ed25519PublicKey(parsing: "  " + rootHex.uppercased() + "\n")
        let spki = Base64.encode(fromBase64.spkiDER)
        #expect(spki.hasPrefix("MCowBQYDK2VwAyEA"))
        let fromSPKI = try Ed25519PublicKey(parsing: spki)
        let fromPEM = try Ed25519PublicKey(parsing: "-----BEGIN PUBLIC KEY-----\n\(spki)\n-----END PUBLIC KEY-----\n")
        #expect(Set([fromBase64, fromHex, fromUppercaseHex, fromSPKI, fromPEM]).count == 1)
        #expect(Hex.encode(fromBase64.rawRepresentation) == rootHex)
    }

    @Test(arguments: [
        "", "not a key", "Nz5XgYPm9wWMq6BzPJWhG3hbAqqz7xG2+HwWLMbcr0k", "Nz5XgYPm9wWMq6BzPJWhG3hbAqqz7xG2+HwWLMbcr0k=AA==",
        String(repeating: "a", count: 63), String(repeating: "g", count: 64), "AAAA",
        // A 44-byte DER whose OID is not Ed25519 (X25519: 1.3.101.110).
        "MCowBQYDK2VuAyEAzNZKwC6qf3kEEVMLvwrSx4sntODtWrbALQfxnn729KE=",
    ])
    func malformedPublicKeysAreRefusedWithoutEchoingThem(_ text: String) {
        let error = #expect(throws: CryptoError.self) { try Ed25519PublicKey(parsing: text) }
        #expect(error?.code == .invalidKey)
        if text.count > 8 { #expect(error?.message.contains(text) == false) }
    }

    @Test func rawKeyAndSeedLengthsAreChecked() {
        #expect(throws: CryptoError.self) { try Ed25519PublicKey(rawRepresentation: [UInt8](repeating: 1, count: 31)) }
        #expect(throws: CryptoError.self) { try Ed25519PrivateKey(seed: [UInt8](repeating: 1, count: 33)) }
    }

    @Test func generatedKeysSignAndVerifyAndDiffer() {
        let a = Ed25519PrivateKey.generate()
        let b = Ed25519PrivateKey.generate()
        #expect(a.seedRepresentation != b.seedRepresentation)
        let message = Array("manifest body".utf8)
        let signature = a.signature(for: message)
        #expect(signature.count == 64)
        #expect(a.publicKey.isValidSignature(signature, for: message))
        #expect(!b.publicKey.isValidSignature(signature, for: message))
        #expect(a.signature(for: message) == signature, "Ed25519 is deterministic")
        #expect(a.publicKey.isValidSignature(a.signature(for: []), for: []))
    }

    @Test func privateKeyNeverShowsItsSeed() throws {
        let key = try Ed25519PrivateKey(seed: Hex.decode(rootSeedHex) ?? [])
        let texts = [key.description, key.debugDescription, String(describing: key), String(reflecting: key), "\(key)"]
        for text in texts {
            #expect(!text.contains(rootSeedHex))
            #expect(!text.contains(Base64.encode(key.seedRepresentation)))
            #expect(text.contains(rootBase64))
        }
        var dumped = ""
        dump(key, to: &dumped)
        #expect(!dumped.contains(rootSeedHex))
        #expect(!dumped.contains("seed"))
    }

    @Test func wrongLengthsAreInvalidNotCrashes() {
        let key = Ed25519PrivateKey.generate()
        let signature = key.signature(for: [1, 2, 3])
        #expect(!Ed25519.isValidSignature(Array(signature.dropLast()), of: [1, 2, 3], publicKey: key.publicKey.rawRepresentation))
        #expect(!Ed25519.isValidSignature(signature + [0], of: [1, 2, 3], publicKey: key.publicKey.rawRepresentation))
        #expect(!Ed25519.isValidSignature(signature, of: [1, 2, 3], publicKey: []))
        #expect(!Ed25519.isValidSignature([], of: [], publicKey: []))
    }
}
