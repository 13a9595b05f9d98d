import Foundation
import StepwiseCrypto
import Testing

/// One Project Wycheproof Ed25519 verification test.
struct WycheproofCase: Sendable, CustomTestStringConvertible {
    let id: Int
    let comment: String
    let publicKey: [UInt8]
    let message: [UInt8]
    let signature: [UInt8]
    let isValid: Bool

    var testDescription: String { "tcId \(id) \(comment.isEmpty ? "" : "(\(comment))")" }

    /// Every test of `Fixtures/vectors/wycheproof_ed25519_test.json`.
    static let all: [WycheproofCase] = {
        let url = packageRoot().appendingPathComponent("Fixtures/vectors/wycheproof_ed25519_test.json")
        guard let data = try? Data(contentsOf: url),
            let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let groups = root["testGroups"] as? [[String: Any]]
        else { return [] }
        var cases: [WycheproofCase] = []
        for group in groups {
            let key = (group["publicKey"] as? [String: Any])?["pk"] as? String ?? ""
            for test in group["tests"] as? [[String: Any]] ?? [] {
                cases.append(
                    WycheproofCase(
                        id: test["tcId"] as? Int ?? -1, comment: test["comment"] as? String ?? "",
                        publicKey: Hex.decode(key) ?? [], message: Hex.decode(test["msg"] as? String ?? "") ?? [],
                        signature: Hex.decode(test["sig"] as? String ?? "") ?? [],
                        isValid: test["result"] as? String == "valid"))
            }
        }
        return cases
    }()

    /// The SPKI DER and PEM forms of each group's key, with the raw key.
    static let groupKeys: [(raw: String, der: String, pem: String)] = {
        let url = packageRoot().appendingPathComponent("Fixtures/vectors/wycheproof_ed25519_test.json")
        guard let data = try? Data(contentsOf: url),
            let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let groups = root["testGroups"] as? [[String: Any]]
        else { return [] }
        return groups.map {
            (
                (($0["publicKey"] as? [String: Any])?["pk"] as? String) ?? "", $0["publicKeyDer"] as? String ?? "",
                $0["publicKeyPem"] as? String ?? ""
            )
        }
    }()
}

/// The package root, found from this file's location.
func packageRoot(file: String = #filePath) -> URL {
    URL(fileURLWithPath: file).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}

@Suite("Ed25519 Wycheproof vectors")
struct WycheproofTests {
    @Test func fileHasAll151Tests() {
        #expect(WycheproofCase.all.count == 151)
        #expect(WycheproofCase.all.contains { $0.isValid })
        #expect(WycheproofCase.all.contains { !$0.isValid })
    }

    @Test(arguments: WycheproofCase.all)
    func verifyGivesTheExpectedResult(_ vector: WycheproofCase) {
        let accepted = Ed25519.isValidSignature(vector.signature, of: vector.message, publicKey: vector.publicKey)
        #expect(accepted == vector.isValid)
        if let key = try? Ed25519PublicKey(rawRepresentation: vector.publicKey) {
            #expect(key.isValidSignature(vector.signature, for: vector.message) == vector.isValid)
        }
    }

    @Test func spkiAndPEMFormsParseToTheRawKey() throws {
        #expect(!WycheproofCase.groupKeys.isEmpty)
        for group in WycheproofCase.groupKeys {
            let raw = try Ed25519PublicKey(parsing: group.raw)
            let der = try Ed25519PublicKey(parsing: Base64.encode(Hex.decode(group.der) ?? []))
            let pem = try Ed25519PublicKey(parsing: group.pem)
            #expect(raw == der)
            #expect(raw == pem)
            #expect(Hex.encode(der.spkiDER) == group.der.lowercased())
        }
    }
}

/// RFC 8032 §7.1, tests 1-3 (typed in from the RFC).
struct RFC8032Vector: Sendable, CustomTestStringConvertible {
    let name: String
    let secretKey: String
    let publicKey: String
    let message: String
    let signature: String

    var testDescription: String { name }

    static let all: [RFC8032Vector] = [
        RFC8032Vector(
            name: "TEST 1",
            secretKey: "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
            publicKey: "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
            message: "",
            signature: "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
                + "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"),
        RFC8032Vector(
            name: "TEST 2",
            secretKey: "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
            publicKey: "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
            message: "72",
            signature: "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
                + "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"),
        RFC8032Vector(
            name: "TEST 3",
            secretKey: "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
            publicKey: "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
            message: "af82",
            signature: "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac"
                + "18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a"),
    ]
}

@Suite("Ed25519 RFC 8032 vectors")
struct RFC8032Tests {
    @Test(arguments: RFC8032Vector.all)
    func seedGivesThePublicKeyAndTheSignature(_ vector: RFC8032Vector) throws {
        let key = try Ed25519PrivateKey(seed: try #require(Hex.decode(vector.secretKey)))
        let message = try #require(Hex.decode(vector.message))
        #expect(Hex.encode(key.publicKey.rawRepresentation) == vector.publicKey)
        #expect(Hex.encode(key.signature(for: message)) == vector.signature)
    }

    @Test(arguments: RFC8032Vector.all)
    func signatureVerifiesAndAnyFlippedBitFails(_ vector: RFC8032Vector) throws {
        let publicKey = try #require(Hex.decode(vector.publicKey))
        let message = try #require(Hex.decode(vector.message))
        let signature = try #require(Hex.decode(vector.signature))
        #expect(Ed25519.isValidSignature(signature, of: message, publicKey: publicKey))
        for bit in stride(from: 0, to: 512, by: 37) {
            var bad = signature
            bad[bit / 8] ^= UInt8(1 << (bit % 8))
            #expect(!Ed25519.isValidSignature(bad, of: message, publicKey: publicKey))
        }
        #expect(!Ed25519.isValidSignature(signature, of: message + [0], publicKey: publicKey))
    }
}
