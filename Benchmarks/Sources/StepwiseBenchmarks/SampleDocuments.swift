import StepwiseJSON

/// Documents the benchmarks read: a realistic ~5 KB sequence-like document written by hand, and
/// a generated sequence of about 1 MiB.
enum SampleDocuments {
    /// A ~5 KB sequence-like document: nested objects and arrays, strings with escapes and
    /// non-ASCII text (accents, CJK, emoji, `\u` escapes), integers and doubles.
    static let fiveKilobytes: [UInt8] = Array(
        #"""
        {
          "id": "5f1c2a9e-7b3d-4c1a-9e8f-0a1b2c3d4e5f",
          "tenant_id": "mobile-eu",
          "namespace": "growth",
          "name": "checkout-recovery",
          "version": 17,
          "deprecated": false,
          "created_at": "2026-03-14T09:26:53.589Z",
          "input_schema": {"type": "object", "required": ["cart_id", "user"], "properties": {"cart_id": {"type": "string"}, "total": {"type": "number", "minimum": 0}}},
          "blocks": [
            {"type": "step", "id": "load_cart", "handler": "cart.load", "params": {"cart_id": "{{ input.cart_id }}", "include": ["items", "discounts", "shipping"], "page_size": 50}, "timeout": 15000, "retry": {"max_attempts": 3, "initial_backoff": 250, "max_backoff": 4000, "backoff_multiplier": 2.5}},
            {"type": "step", "id": "price_check", "handler": "pricing.quote", "params": {"currency": "EUR", "tax_rate": 0.19, "rounding": "half_even", "thresholds": [9.99, 24.5, 49.95, 99.0], "note": "Prices incl. VAT \u00b7 \"Sonderpreis\" g\u00fcltig bis 31.03."}, "when": "context.data.cart.total > 0"},
            {"type": "router", "id": "segment", "routes": [
              {"condition": "data.user.tier == 'gold' && data.cart.total >= 100", "blocks": [
                {"type": "step", "id": "gold_offer", "handler": "offers.send", "params": {"template": "gold_recovery", "discount": 0.15, "title": "Votre panier vous attend \u2014 -15 % aujourd'hui", "body": "Bonjour {{ data.user.first_name }},\n\nvos articles sont r\u00e9serv\u00e9s pendant 24 h.\n\u2022 Livraison offerte\n\u2022 Retours gratuits", "channels": ["push", "email"]}}
              ]},
              {"condition": "data.user.locale == 'ja-JP'", "blocks": [
                {"type": "step", "id": "ja_offer", "handler": "offers.send", "params": {"template": "recovery_ja", "title": "カートに商品が残っています 🛒", "body": "お買い忘れはありませんか？\t期間限定：送料無料", "discount": 0.1, "channels": ["push"]}}
              ]}
            ], "default": [
              {"type": "step", "id": "default_offer", "handler": "offers.send", "params": {"template": "recovery_default", "title": "Still thinking it over? \ud83e\udd14", "body": "Your cart is saved. Tap to finish checking out \u2192", "discount": 0.05, "channels": ["push", "in_app"], "quiet_hours": {"start": "22:00", "end": "07:30", "tz": "Europe/Berlin"}}}
            ]},
            {"type": "step", "id": "wait_for_decision", "handler": "ui.prompt", "params": {"screen": "cart_reminder", "layout": {"columns": 2, "spacing": 12.5, "ratio": 1.7777777777777777}}, "wait_for_input": {"prompt": "Complete your purchase?", "timeout": 86400000, "choices": [{"label": "Buy now", "value": "buy"}, {"label": "Remind me later", "value": "later"}, {"label": "No thanks", "value": "dismiss"}], "store_as": "decision"}},
            {"type": "parallel", "id": "follow_up", "branches": [
              [{"type": "step", "id": "track", "handler": "analytics.track", "params": {"event": "cart_recovery_decision", "properties": {"decision": "{{ data.decision }}", "items": 3, "value": 127.45, "experiment": {"id": 42, "arm": "B", "weights": [0.5, 0.25, 0.25]}}}}],
              [{"type": "loop", "id": "poll_payment", "condition": "data.payment.status == 'pending'", "max_iterations": 20, "poll_interval": 30, "body": [
                {"type": "step", "id": "check_payment", "handler": "payments.status", "params": {"order_ref": "{{ outputs.load_cart.order_ref }}", "fields": ["status", "amount", "captured_at"]}, "delay": {"duration": 1.5, "jitter": 250}}
              ]}]
            ], "fail_fast": true},
            {"type": "try_catch", "id": "fulfil", "try_block": [
              {"type": "step", "id": "reserve_stock", "handler": "inventory.reserve", "params": {"warehouse": "BER-2", "priority": -1, "lines": [{"sku": "A-1001", "qty": 2, "unit_price": 19.99}, {"sku": "B-2040", "qty": 1, "unit_price": 87.47}]}}
            ], "catch_block": [
              {"type": "step", "id": "notify_ops", "handler": "ops.alert", "params": {"severity": "warning", "message": "Reservation failed for order {{ outputs.load_cart.order_ref }}: \"{{ error.message }}\"", "path": "C:\\ops\\alerts\\stock.log"}}
            ], "finally_block": [
              {"type": "step", "id": "audit", "handler": "audit.log", "params": {"kind": "fulfil", "ok": true, "latency_ms": 1834, "score": 9.75e-1, "big": 12345678901234, "tiny": 1.0e-9}}
            ]}
          ],
          "on_failure": [
            {"type": "step", "id": "failure_push", "handler": "offers.send", "params": {"template": "sorry", "title": "Something went wrong \u26a0\ufe0f", "body": "We could not complete your order. Nothing was charged.", "channels": ["push"]}}
          ],
          "sla": {"p50_ms": 1200, "p99_ms": 9800.5},
          "tags": ["recovery", "checkout", "eu", "ünïcödé", "\u00e9t\u00e9", "emoji-😀"]
        }
        """#.utf8)

    /// A valid sequence of about 1 MiB (just under the default 1,048,576-byte limit) made of
    /// many steps with bulky parameters, guards and wait-for-input blocks.
    static let oneMebibyteSequence: [UInt8] = {
        let limit = 1_048_576 - 2_048
        var blocks: [JSONValue] = []
        var size = 64
        var i = 0
        while true {
            let step = step(i)
            let stepSize = JSONWriter.bytes(step).count + 1
            if size + stepSize > limit || blocks.count >= 4_900 { break }
            blocks.append(step)
            size += stepSize
            i += 1
        }
        let document: JSONValue = ["name": "memory-benchmark", "version": 1, "blocks": .array(blocks)]
        return JSONWriter.bytes(document)
    }()

    private static func step(_ i: Int) -> JSONValue {
        var params = JSONObject()
        params["screen"] = .string("screen_\(i % 37)")
        params["title"] = .string("Step \(i): Bitte bestätigen — “quoted” \\ text ✓")
        params["weights"] = .array((0..<8).map { .double(Double($0) * 0.125 + Double(i)) })
        params["ids"] = .array((0..<12).map { .integer(Int64(i * 100 + $0)) })
        params["options"] = ["retry": true, "label": .string("option-\(i)"), "ratio": .double(Double(i) / 7)]
        params["message"] = .string("Hello {{ data.user.name }}, this is step \(i) of the generated flow.")
        var step: JSONObject = [
            "type": "step", "id": .string("step_\(i)"), "handler": .string("handler_\(i % 23)"), "params": .object(params),
        ]
        if i % 3 == 0 { step["when"] = .string("data.count > \(i % 10) && data.flag != null") }
        if i % 5 == 0 {
            step["wait_for_input"] = [
                "prompt": "Continue?", "timeout": 60_000,
                "choices": [["label": "Yes", "value": "yes"], ["label": "No", "value": "no"]],
                "store_as": .string("answer_\(i)"),
            ]
        }
        return .object(step)
    }
}
