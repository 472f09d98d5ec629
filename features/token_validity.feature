Feature: How long tokens stay valid
  An access token is valid for 600 seconds after it is issued, a refresh
  token for 3600 seconds. Refreshing gives a new access token; the refresh
  token itself keeps its original expiry.

  The reference server's clock can be moved forward, so the @local @clock
  scenarios do not wait in real time; the @slow ones wait against any
  deployment.

  @spec @LIM-1 @CLI-5 @local @clock
  Scenario: An access token works for 600 seconds and not a moment longer
    Given the user has a token
    When 599 seconds pass
    Then the access token is accepted by the resource server
    When 1 more second passes
    Then the access token is refused by the resource server

  @spec @LIM-1 @CLI-5 @local @clock
  Scenario: The expiry announced with the token counts down
    Given the user has a token
    When 100 seconds pass
    And the client asks for a refresh of the refresh token
    Then a token is issued
    And the access token expires within 600 seconds

  @spec @LIM-2 @CLI-6 @local @clock
  Scenario: A refresh token works for 3600 seconds and not a moment longer
    Given the user has a token
    When 3599 seconds pass
    And the client asks for a refresh of the refresh token
    Then a token is issued
    And the access token is accepted by the resource server
    When 1 more second passes
    And the client asks for a refresh of the refresh token
    Then no token is issued

  @ref @LIM-2 @TOK-11 @local @clock
  Scenario: An expired refresh token is an invalid grant
    Given the user has a token
    When 3600 seconds pass
    And the client asks for a refresh of the refresh token
    Then the token request is refused with status 400 and error "invalid_grant"
    And the error description mentions "expired"

  @ref @LIM-1 @AUTH-7 @local @clock
  Scenario: An expired access token is refused with a challenge that says why
    Given the user has a token
    When 600 seconds pass
    And the user sends a request that needs a token
    Then the answer has status 401
    And the answer challenges the caller to authenticate with "Bearer" and error "invalid_token"
    And the error description mentions "expired"
    And the answer does not repeat any token of this scenario

  @spec @LIM-1 @slow
  Scenario: An access token stops working once the lifetime it was issued with has passed
    Given the user has a token
    When the lifetime announced with the access token has passed
    Then the access token is refused by the resource server

  @spec @LIM-2 @slow
  Scenario: A refresh token stops working 3600 seconds after issue
    Given the user has a token
    When 3600 seconds have passed since the token was issued
    And the client asks for a refresh of the refresh token
    Then no token is issued
